/**
 * Elicitation: an MCP server asks the person for input (`elicitation/create`). The McpClient does
 * not answer for them: it hands the request to a responder — the terminal in the CLI, a form on the
 * dashboard — registered through `McpClientApi.addElicitationResponder`, and announces it on the
 * bus (`mcp-client:elicitation-requested`). With no responder the request is refused at once; an
 * answer that does not come within the timeout is a `cancel`. A dashboard answers through the
 * person-only tool `answer_elicitation` ({@link ElicitationDesk.answer}), whichever responder was
 * asked: its responder only waits (see `waitForTheDashboard`). Only a person answers: the tool is
 * refused to agents, Python and MCP clients, so an agent cannot accept on anyone's behalf.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { oneLine } from '../../src/kernel/bounded.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import type { ElicitationAnswer, ElicitationOutcome, ElicitationRequest, ElicitationResponder } from '../../src/contracts/mcp-client-contract.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { REFUSAL, RequestRefused } from './refusal.ts';

export type { ElicitationAnswer, ElicitationOutcome, ElicitationRequest, ElicitationResponder } from '../../src/contracts/mcp-client-contract.ts';

let ids = 0;

/** The responders and the requests waiting on them. */
export class ElicitationDesk {
  private readonly responders: ElicitationResponder[] = [];
  private readonly waiting = new Map<string, ElicitationRequest>();
  /** How to hand each waiting request the person's answer from the tool. */
  private readonly answers = new Map<string, (answer: ElicitationAnswer) => void>();

  constructor(
    private readonly bus: Pick<EventSource, 'emit'>,
    private readonly timeoutMs: number,
  ) {}

  /** Registers a responder; the latest one answers. The disposable removes it. */
  addResponder(responder: ElicitationResponder): Disposable {
    this.responders.push(responder);
    return { dispose: () => void this.responders.splice(this.responders.indexOf(responder) >>> 0, 1) };
  }

  /** Requests waiting for an answer. */
  pending(): ElicitationRequest[] {
    return [...this.waiting.values()];
  }

  /**
   * Answers the waiting request `id` (the tool `answer_elicitation`). Throws
   * `ELICITATION_NOT_FOUND` when none waits by that id (answered, timed out or withdrawn).
   */
  answer(id: string, answer: ElicitationAnswer): { id: string; server: string; action: ElicitationAnswer['action'] } {
    const request = this.waiting.get(id);
    const give = this.answers.get(id);
    if (!request || !give) {
      throw new ArmatureError('ELICITATION_NOT_FOUND', `[answer_elicitation] no request ${JSON.stringify(String(id).slice(0, 60))} waits for an answer`, {
        hint: 'It was answered, timed out or withdrawn by its server; the McpClient card lists the ones waiting.',
      });
    }
    give(answer);
    return { id, server: request.server, action: answer.action };
  }

  /** Asks the person on behalf of `server`; what the SDK client answers the server with. */
  async ask(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const responder = this.responders.at(-1);
    const id = `elicit-${++ids}`;
    if (!responder) {
      this.bus.emit('mcp-client:elicitation-ended', { id, server, outcome: 'refused' });
      throw new RequestRefused(REFUSAL.invalidRequest, 'elicitation refused: nobody can answer here (no terminal or dashboard is asking the person); run the command in a terminal, or from the dashboard');
    }
    const request: ElicitationRequest = {
      id,
      server,
      message: oneLine(params.message, 2000),
      mode: params.mode === 'url' ? 'url' : 'form',
      ...('requestedSchema' in params && params.requestedSchema ? { schema: params.requestedSchema as ElicitationRequest['schema'] } : {}),
      ...('url' in params && typeof params.url === 'string' ? { url: params.url } : {}),
      expiresAt: Date.now() + this.timeoutMs,
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort('timeout'), this.timeoutMs);
    const withdrawn = () => controller.abort('withdrawn');
    signal.addEventListener('abort', withdrawn, { once: true });
    this.waiting.set(id, request);
    const fromTool = new Promise<ElicitationAnswer>((resolve) => this.answers.set(id, resolve));
    this.bus.emit('mcp-client:elicitation-requested', { request });
    let outcome: ElicitationOutcome = 'cancel';
    try {
      const answer = await Promise.race([
        responder(request, controller.signal),
        fromTool,
        new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })),
      ]);
      outcome = answer.action;
      return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
    } catch (e) {
      if (controller.signal.reason === 'timeout') {
        outcome = 'timeout';
        return { action: 'cancel' };
      }
      if (controller.signal.aborted) return { action: 'cancel' };
      throw new RequestRefused(REFUSAL.internalError, `elicitation failed: ${(e as Error)?.message ?? e}`);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', withdrawn);
      this.waiting.delete(id);
      this.answers.delete(id);
      // The responder that was asked is done with it too (a form goes, a prompt stops).
      controller.abort('answered');
      this.bus.emit('mcp-client:elicitation-ended', { id, server, outcome });
    }
  }
}
