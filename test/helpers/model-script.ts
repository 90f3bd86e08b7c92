// The script of a pretend model, shared by the mock model (unit tests, benchmarks) and the scripted
// HTTP server (end to end): each turn is what the model answers to one request, in order.

/** One tool call the scripted model makes. `args` as an object is sent as JSON; a string is sent verbatim (malformed JSON on purpose). */
export interface ScriptedToolCall {
  name: string;
  args: unknown;
  /** Default: `call_<turn>_<index>`. */
  id?: string;
}

/** A normal answer: text (one string, or the deltas it streams as), tool calls, token counts. */
export interface ScriptedAnswer {
  /** Streamed in the given pieces; a single string is streamed word by word. Default: none. */
  text?: string | string[];
  toolCalls?: ScriptedToolCall[];
  /** Default: `{ input: 100, output: 10 }`. */
  usage?: { input: number; output: number };
  /** Default: `tool_calls` when there are calls, else `stop`. */
  finishReason?: 'stop' | 'tool_calls' | 'length';
}

/** An HTTP error answer (the server only; the mock model throws the library's APICallError instead). */
export interface ScriptedFailure {
  status: number;
  /** Default: `{ "error": { "message": "scripted <status>" } }`. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** One turn of the script: a fixed answer, a failure, or a function of what the model was sent. */
export type ScriptTurn = ScriptedAnswer | ScriptedFailure | ((request: ScriptedRequest) => ScriptedAnswer | ScriptedFailure);

/** What the pretend model was sent, in the OpenAI chat-completions shape. */
export interface ScriptedRequest {
  model?: string;
  messages: { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
  [key: string]: unknown;
}

/** Whether a turn is a failure. */
export const isFailure = (t: ScriptedAnswer | ScriptedFailure): t is ScriptedFailure => typeof (t as ScriptedFailure).status === 'number';

/** The pieces a turn's text streams as. */
export function textPieces(text: ScriptedAnswer['text']): string[] {
  if (text === undefined) return [];
  if (Array.isArray(text)) return text;
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** A tool call's arguments as the wire carries them. */
export const argsText = (args: unknown) => (typeof args === 'string' ? args : JSON.stringify(args));
