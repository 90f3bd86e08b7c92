/**
 * An MCP client's model as an AI SDK language model: each generation is one
 * `sampling/createMessage` request to the client (on the stream of the request that started the
 * agent run), with the run's tools offered as sampling tools. So an agent started through
 * `armature mcp` runs on the model of Claude Desktop, VS Code or whatever client it is, with no key
 * of Armature's own. The client decides (it may ask its person); a refusal is a model error.
 *
 * Mapping: system messages → `systemPrompt`; user text → user text; assistant text and tool calls
 * → assistant `text` and `tool_use`; tool results → a user message of `tool_result`s. The answer's
 * `text` and `tool_use` blocks come back as text and tool calls; `stopReason` maps to the finish
 * reason (`toolUse` → tool-calls, `maxTokens` → length, `endTurn`/`stopSequence` → stop).
 */
import type { LanguageModel } from 'ai';
import { CreateMessageResultWithToolsSchema, type ClientCapabilities, type CreateMessageRequestParams, type CreateMessageResultWithTools, type SamplingMessage } from '@modelcontextprotocol/sdk/types.js';
import { ArmatureError } from '../kernel/errors.ts';
import type { RequestExtra } from './requests.ts';

/** The AI SDK's model interface (specification v3), from `ai`'s own `LanguageModel`. */
type ModelV3 = Extract<LanguageModel, { specificationVersion: 'v3' }>;
type CallOptions = Parameters<ModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<ModelV3['doGenerate']>>;
type StreamPart = Awaited<ReturnType<ModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;
type Content = GenerateResult['content'][number];
type SamplingBlock = Extract<SamplingMessage['content'], { type: string }>;

/** Tokens asked for when the run sets no limit (sampling requires one). */
const DEFAULT_MAX_TOKENS = 4096;
/** How long one sampling request may wait for the client (its person may be asked first), in ms. */
const SAMPLING_TIMEOUT_MS = 5 * 60_000;

/** Why the client's model cannot run an agent, or undefined when it can. */
export function samplingProblem(capabilities: ClientCapabilities | undefined): string | undefined {
  if (!capabilities?.sampling) return 'this MCP client does not offer sampling (its model), so the agent has no model';
  if (!capabilities.sampling.tools) return 'this MCP client\'s sampling takes no tools (capability sampling.tools), and an agent works by calling tools';
  return undefined;
}

const toText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The AI SDK prompt as a sampling request's system prompt and messages. */
export function toSamplingMessages(prompt: CallOptions['prompt']): { systemPrompt?: string; messages: SamplingMessage[] } {
  const system: string[] = [];
  const messages: SamplingMessage[] = [];
  for (const m of prompt) {
    if (m.role === 'system') {
      system.push(m.content);
      continue;
    }
    const blocks: SamplingBlock[] = [];
    if (m.role === 'tool') {
      for (const part of m.content) {
        if (part.type !== 'tool-result') continue;
        const out = part.output;
        const text = out.type === 'text' || out.type === 'error-text' ? out.value : out.type === 'json' || out.type === 'error-json' ? toText(out.value) : toText(out);
        blocks.push({ type: 'tool_result', toolUseId: part.toolCallId, content: [{ type: 'text', text }], ...(out.type.startsWith('error') ? { isError: true } : {}) });
      }
      messages.push({ role: 'user', content: blocks });
      continue;
    }
    for (const part of m.content) {
      if (part.type === 'text') blocks.push({ type: 'text', text: part.text });
      else if (part.type === 'tool-call') blocks.push({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input: (typeof part.input === 'string' ? JSON.parse(part.input) : part.input) as Record<string, unknown> });
      // Reasoning and files stay on this side: sampling has no place for them.
    }
    if (blocks.length) messages.push({ role: m.role, content: blocks.length === 1 ? blocks[0]! : blocks });
  }
  return { ...(system.length ? { systemPrompt: system.join('\n\n') } : {}), messages };
}

/** A sampling answer as the AI SDK's generation result. */
export function fromSamplingResult(result: CreateMessageResultWithTools): GenerateResult {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const content: Content[] = [];
  for (const b of blocks) {
    if (b.type === 'text') content.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use') content.push({ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: JSON.stringify(b.input ?? {}) });
  }
  const raw = result.stopReason;
  const unified = raw === 'toolUse' || content.some((c) => c.type === 'tool-call') ? 'tool-calls' : raw === 'maxTokens' ? 'length' : raw === 'endTurn' || raw === 'stopSequence' || raw === undefined ? 'stop' : 'other';
  const none = { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined };
  return {
    content,
    finishReason: { unified, raw },
    usage: { inputTokens: none, outputTokens: { total: undefined, text: undefined, reasoning: undefined } },
    warnings: [],
    response: { modelId: result.model },
  } as GenerateResult;
}

/**
 * The client behind `extra` as a language model. Throws `MCP_NO_CLIENT_MODEL` saying why when the
 * client cannot serve as one (see {@link samplingProblem}).
 */
export function samplingModel(extra: RequestExtra, capabilities: ClientCapabilities | undefined, clientName: string): LanguageModel {
  const problem = samplingProblem(capabilities);
  if (problem) throw new ArmatureError('MCP_NO_CLIENT_MODEL', `[run_agent] ${problem}`, { hint: 'Configure a model for the persona (its "model", or armature mcp --model ...), or use an MCP client that offers sampling with tools.' });
  const generate = async (options: CallOptions): Promise<GenerateResult> => {
    const { systemPrompt, messages } = toSamplingMessages(options.prompt);
    const tools = (options.tools ?? []).filter((t) => t.type === 'function');
    const params: CreateMessageRequestParams = {
      messages,
      ...(systemPrompt ? { systemPrompt } : {}),
      maxTokens: options.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.stopSequences?.length ? { stopSequences: options.stopSequences } : {}),
      ...(tools.length
        ? {
            tools: tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: { ...(t.inputSchema as object), type: 'object' as const } })),
            toolChoice: { mode: options.toolChoice?.type === 'none' ? 'none' : options.toolChoice?.type === 'required' || options.toolChoice?.type === 'tool' ? 'required' : 'auto' },
          }
        : {}),
    };
    const result = await extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultWithToolsSchema, {
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
      timeout: SAMPLING_TIMEOUT_MS,
    });
    return fromSamplingResult(result);
  };
  const model: ModelV3 = {
    specificationVersion: 'v3',
    provider: 'mcp-client',
    modelId: clientName,
    supportedUrls: {},
    doGenerate: generate,
    // Sampling answers whole: the stream is that answer, in the parts the AI SDK expects.
    async doStream(options) {
      const result = await generate(options);
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }, { type: 'response-metadata', ...(result.response?.modelId ? { modelId: result.response.modelId } : {}) }];
      result.content.forEach((c, i) => {
        if (c.type === 'text') parts.push({ type: 'text-start', id: String(i) }, { type: 'text-delta', id: String(i), delta: c.text }, { type: 'text-end', id: String(i) });
        else if (c.type === 'tool-call') parts.push(c);
      });
      parts.push({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  };
  return model;
}
