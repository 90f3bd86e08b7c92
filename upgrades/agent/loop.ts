import type { JSONSchema7, LanguageModel, ModelMessage, ToolSet } from 'ai';
import { MAX_NAME_LENGTH, shortName } from '../../src/kernel/bounded.ts';
import type { AgentStopReason, AgentUsage, RunError } from '../../src/contracts/agent-contract.ts';
import { toolResultPart } from './messages.ts';
import type { OfferedTool } from '../../src/contracts/offered-tools.ts';
import { peerMissing } from '../../src/kernel/optional-peer.ts';

/** One tool call the model asked for. `args` is whatever it sent: an object, or the raw text when that was not JSON. */
export interface ToolCallRequest {
  step: number;
  toolCallId: string;
  name: string;
  args: unknown;
}

/** What a tool call gave back to the model. */
export interface ToolCallOutcome {
  ok: boolean;
  /** What the model gets, JSON. */
  result: unknown;
}

/** What the loop reports about a step's assistant message. */
export interface AssistantStep {
  text: string;
  message: ModelMessage;
  finishReason: string;
  usage: AgentUsage;
}

/** Options of {@link runTurn}. */
export interface TurnOptions {
  model: LanguageModel;
  system: string;
  /** The conversation so far, ending with the new goal; the turn appends to it. */
  messages: ModelMessage[];
  tools: readonly OfferedTool[];
  maxSteps: number;
  /** Number of the turn's first step (steps are numbered across a run's turns). Default: 1. */
  firstStep?: number;
  /** Retries of a failed request (429, 5xx) by the provider library, with backoff. */
  maxRetries: number;
  signal: AbortSignal;
  /** Called before each model request. */
  onStepStart?(step: number): void;
  onTextDelta(step: number, delta: string): void;
  /** The step's text is complete (called once a step's stream ends, before its tool calls run). Default: none. */
  onTextEnd?(step: number): void;
  /** Runs one tool call; never rejects. */
  executeTool(call: ToolCallRequest): Promise<ToolCallOutcome>;
  onAssistant(step: number, info: AssistantStep): void;
  onStepFinished(step: number, info: { finishReason: string; usage: AgentUsage; toolCalls: number }): void;
  /** Turns what a model request threw into a readable error. */
  describeError(error: unknown): RunError;
}

/** How a turn ended. */
export interface TurnOutcome {
  reason: AgentStopReason;
  steps: number;
  usage: AgentUsage;
  answer?: string;
  error?: RunError;
}

/** The AI SDK, an optional peer: imported when a turn starts, so the Agent loads without it. */
type AiSdk = typeof import('ai');

/**
 * The tools in the provider library's form. No validation happens there: every call, however
 * malformed, reaches the ToolRunner, whose `INVALID_ARGUMENTS` result goes back to the model.
 */
export function toToolSet(ai: AiSdk, tools: readonly OfferedTool[]): ToolSet | undefined {
  if (!tools.length) return undefined;
  return Object.fromEntries(tools.map((t) => [t.name, ai.tool({ description: t.description, inputSchema: ai.jsonSchema(t.inputSchema as JSONSchema7) })]));
}

const usageOf = (u: { inputTokens?: number; outputTokens?: number } | undefined): AgentUsage => ({ inputTokens: u?.inputTokens ?? 0, outputTokens: u?.outputTokens ?? 0 });

/** An assistant message with its tool calls' names cut as the calls themselves are (see `runTurn`). */
function boundToolNames(message: ModelMessage): ModelMessage {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
  if (!message.content.some((p) => p.type === 'tool-call' && p.toolName.length > MAX_NAME_LENGTH)) return message;
  return { ...message, content: message.content.map((p) => (p.type === 'tool-call' ? { ...p, toolName: shortName(p.toolName) } : p)) };
}

/**
 * One turn of the agent: asks the model, streams its text, runs the tool calls it makes (one at a
 * time, in order) and feeds their results back, until the model answers without a tool call, the
 * step budget is spent, the signal aborts, or a request fails. The provider library runs one step
 * per request here, so each step's transcript entry, events and tool calls are the loop's own.
 */
export async function runTurn(o: TurnOptions): Promise<TurnOutcome> {
  const ai = await import('ai').catch(peerMissing('ai', 'Agent'));
  const tools = toToolSet(ai, o.tools);
  const first = o.firstStep ?? 1;
  let usage: AgentUsage = { inputTokens: 0, outputTokens: 0 };
  const add = (u: AgentUsage) => (usage = { inputTokens: usage.inputTokens + u.inputTokens, outputTokens: usage.outputTokens + u.outputTokens });
  for (let i = 0; i < o.maxSteps; i++) {
    const step = first + i;
    const steps = i + 1;
    if (o.signal.aborted) return { reason: 'aborted', steps: i, usage };
    o.onStepStart?.(step);
    let text = '';
    const calls: ToolCallRequest[] = [];
    let error: unknown;
    let finishReason = 'unknown';
    let stepUsage: AgentUsage = { inputTokens: 0, outputTokens: 0 };
    // onError: errors arrive as stream parts and are reported once, readable and redacted; the
    // library's default would print the raw error (which may echo a key) to the console.
    const result = ai.streamText({ model: o.model, system: o.system, messages: o.messages, tools, maxRetries: o.maxRetries, abortSignal: o.signal, onError: () => {} });
    try {
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') {
          text += part.text;
          o.onTextDelta(step, part.text);
        } else if (part.type === 'tool-call') {
          // A model can name anything: a name longer than any tool's is cut here, once, so it is
          // never echoed whole (events, transcript, the conversation); the ToolRunner refuses it.
          if (!part.providerExecuted) calls.push({ step, toolCallId: part.toolCallId, name: shortName(part.toolName), args: part.input });
        } else if (part.type === 'finish-step') {
          finishReason = part.finishReason;
          stepUsage = usageOf(part.usage);
        } else if (part.type === 'error') {
          error ??= part.error;
        }
      }
    } catch (e) {
      error ??= e;
    }
    o.onTextEnd?.(step);
    add(stepUsage);
    if (o.signal.aborted || error !== undefined) {
      // What was said before the stop stays in the transcript, marked by its finish reason.
      if (text) o.onAssistant(step, { text, message: { role: 'assistant', content: [{ type: 'text', text }] }, finishReason: o.signal.aborted ? 'aborted' : 'error', usage: stepUsage });
      if (o.signal.aborted) return { reason: 'aborted', steps, usage };
      return { reason: 'error', steps, usage, error: o.describeError(error) };
    }
    const response = await result.response;
    const assistant = response.messages.filter((m) => m.role === 'assistant').map(boundToolNames);
    if (!text.trim() && !calls.length) {
      o.onStepFinished(step, { finishReason, usage: stepUsage, toolCalls: 0 });
      return {
        reason: 'error',
        steps,
        usage,
        error: {
          code: 'EMPTY_RESPONSE',
          message: `[agent] the model answered with neither text nor a tool call (finish reason: ${finishReason})`,
          hint: finishReason === 'length' ? 'The answer hit the output token limit; ask for less, or use a model with a larger limit.' : 'Run again, rephrase the goal, or try another model.',
        },
      };
    }
    o.messages.push(...assistant);
    o.onAssistant(step, { text, message: assistant[0] ?? { role: 'assistant', content: text }, finishReason, usage: stepUsage });
    if (!calls.length) {
      o.onStepFinished(step, { finishReason, usage: stepUsage, toolCalls: 0 });
      return { reason: 'answered', steps, usage, answer: text };
    }
    const parts = [];
    for (const call of calls) {
      const outcome = await o.executeTool(call);
      parts.push(toolResultPart(call.toolCallId, call.name, outcome.ok, outcome.result));
    }
    o.messages.push({ role: 'tool', content: parts });
    o.onStepFinished(step, { finishReason, usage: stepUsage, toolCalls: calls.length });
    if (o.signal.aborted) return { reason: 'aborted', steps, usage };
  }
  return {
    reason: 'max-steps',
    steps: o.maxSteps,
    usage,
    error: {
      code: 'MAX_STEPS',
      message: `[agent] stopped after ${o.maxSteps} step${o.maxSteps === 1 ? '' : 's'} without a final answer`,
      hint: 'Continue the run with a follow-up message, or allow more steps (--max-steps, or "maxSteps" in the persona).',
    },
  };
}
