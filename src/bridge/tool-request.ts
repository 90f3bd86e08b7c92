/**
 * The text form of a `call_tool` request as it crosses the shared request slot: the worker's
 * `tool-call` message as JSON, with the arguments spliced in exactly as Python's `json.dumps`
 * wrote them (no parse and re-serialise in the worker). Big ints travel as
 * `{"__armature_bigint__": "digits"}` markers and come back as BigInt.
 */

/** The fields of a request besides its arguments. */
export interface ToolRequestHead {
  /** The run the call belongs to. */
  id: string;
  callId: number;
  name: string;
  instance?: string | null;
}

/**
 * The request as one JSON text; `argsJson` must be a JSON document (Python's `json.dumps`, which
 * writes ASCII only, so its length is its size in bytes: sent as `argBytes`).
 */
export function toolRequestText(head: ToolRequestHead, argsJson: string): string {
  const instance = typeof head.instance === 'string' ? `,"instance":${JSON.stringify(head.instance)}` : '';
  return `{"type":"tool-call","id":${JSON.stringify(head.id)},"callId":${head.callId},"name":${JSON.stringify(head.name)}${instance},"argBytes":${argsJson.length},"args":${argsJson}}`;
}

/** `JSON.parse` reviver turning big-int markers into BigInt. */
export function reviveBigInts(_key: string, value: unknown): unknown {
  return value && typeof value === 'object' && '__armature_bigint__' in value ? BigInt((value as { __armature_bigint__: string }).__armature_bigint__) : value;
}

/** Parses a request text (or bare arguments) with big ints revived; throws SyntaxError on bad JSON. */
export function parseToolJson(text: string): unknown {
  // A reviver slows every parse down; only texts holding a marker need one.
  return text.includes('__armature_bigint__') ? JSON.parse(text, reviveBigInts) : JSON.parse(text);
}
