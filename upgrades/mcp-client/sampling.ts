/**
 * Sampling: an MCP server asks this client's model for a message (`sampling/createMessage`). Where
 * the persona allows it (`mcp.sampling`), the Agent upgrade's model answers (`AgentApi.complete`:
 * the model a run would use, with its key), each answer at most `maxTokens`, at most
 * `maxRequests` per server while it runs; past that, or without a model, the request is refused
 * with the reason. Every request is announced (`mcp-client:sampled`), answered or not. Requests
 * with tools are not offered (the capability `sampling.tools` is not declared).
 */
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { REFUSAL, RequestRefused } from './refusal.ts';

/** Default of the persona's `mcp.sampling.maxRequests`. */
export const DEFAULT_MAX_SAMPLING_REQUESTS = 10;
/** Default of the persona's `mcp.sampling.maxTokens`. */
export const DEFAULT_MAX_SAMPLING_TOKENS = 2000;

/** What sampling needs of the Agent upgrade: its `complete`. */
export type SamplingModel = Pick<AgentApi, 'complete'>;

/** Counts and answers one persona's sampling requests. */
export class SamplingGate {
  private readonly used = new Map<string, number>();
  private readonly maxRequests: number;
  private readonly maxTokens: number;

  constructor(
    private readonly persona: Persona,
    private readonly bus: Pick<EventSource, 'emit'>,
    private readonly model: SamplingModel | undefined,
  ) {
    this.maxRequests = persona.mcp?.sampling?.maxRequests ?? DEFAULT_MAX_SAMPLING_REQUESTS;
    this.maxTokens = persona.mcp?.sampling?.maxTokens ?? DEFAULT_MAX_SAMPLING_TOKENS;
  }

  /** Whether servers are offered sampling at all. */
  get offered(): boolean {
    return !!this.persona.mcp?.sampling;
  }

  /** Requests `server` made so far (answered or not). */
  requests(server: string): number {
    return this.used.get(server) ?? 0;
  }

  /** Starts the count of `server` again (it was restarted). */
  reset(server: string): void {
    this.used.delete(server);
  }

  /** Answers `server`'s request, or throws a {@link RequestRefused} saying why not. */
  async answer(server: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult> {
    const n = this.requests(server) + 1;
    this.used.set(server, n);
    const refuse = (message: string): never => {
      this.bus.emit('mcp-client:sampled', { server, ok: false, requests: n, maxRequests: this.maxRequests, error: message });
      throw new RequestRefused(REFUSAL.invalidRequest, `sampling refused: ${message}`);
    };
    if (!this.offered) return refuse(`persona ${this.persona.id} does not let MCP servers use its model (its "mcp": { "sampling": ... })`);
    if (n > this.maxRequests) return refuse(`this server has used its ${this.maxRequests} sampling requests (persona ${this.persona.id}'s mcp.sampling.maxRequests); restart it to start again`);
    if (!this.model) return refuse(`persona ${this.persona.id} has no Agent upgrade, so it has no model to answer with`);
    if (params.tools?.length) return refuse('this client offers no tools to sampling');
    const messages: { role: 'user' | 'assistant'; text: string }[] = [];
    for (const m of params.messages) {
      const blocks = Array.isArray(m.content) ? m.content : [m.content];
      const texts = blocks.map((b) => (b.type === 'text' ? b.text : undefined));
      if (texts.some((t) => t === undefined)) return refuse(`only text messages can be answered (got ${blocks.map((b) => b.type).join(', ')})`);
      messages.push({ role: m.role, text: texts.join('\n') });
    }
    try {
      const r = await this.model.complete({
        ...(params.systemPrompt ? { system: params.systemPrompt } : {}),
        messages,
        maxTokens: Math.min(params.maxTokens, this.maxTokens),
        ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
        ...(params.stopSequences?.length ? { stopSequences: params.stopSequences } : {}),
        signal,
      });
      this.bus.emit('mcp-client:sampled', { server, ok: true, requests: n, maxRequests: this.maxRequests, model: r.model });
      return { role: 'assistant', content: { type: 'text', text: r.text }, model: r.model, stopReason: r.stopReason };
    } catch (e) {
      const hint = (e as { hint?: string }).hint;
      return refuse(`${(e as Error).message}${hint ? ` (${hint})` : ''}`);
    }
  }
}
