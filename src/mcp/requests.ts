/**
 * Request handlers whose bad params get a readable `-32602 Invalid params`. The SDK parses a
 * request against its schema before the handler runs and answers a failure with `-32603` and a
 * zod dump (for `tools/call`, `-32602` with the dump); here the method alone routes the request,
 * and its params are checked with the SDK's own schema, every problem said in a sentence: which
 * field, what it must be, what came instead.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, McpError, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { quote } from '../kernel/bounded.ts';

/** What a handler gets besides its params. */
export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a value is, in words, for "got ..." */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${quote(value, 40)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** The value at `path` in `root`. */
function at(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * One sentence per problem: `params.name is required (a string: the tool to call)`,
 * `params.arguments must be an object (the tool's arguments by name), got a list`. `fields` says
 * what each field is for, by its path (`name`, `ref.uri`).
 */
export function describeParamsError(method: string, error: z.ZodError, params: unknown, fields: Readonly<Record<string, string>> = {}): string {
  const problems = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = path ? `params.${path}` : 'params';
    const what = fields[path] ? ` (${fields[path]})` : '';
    const value = at(params, issue.path);
    if (issue.code === 'invalid_type') {
      const expected = issue.expected === 'record' ? 'object' : issue.expected;
      if (value === undefined) return `${field} is required${what || ` (${expected === 'object' ? 'an object' : `a ${expected}`})`}`;
      return `${field} must be ${expected === 'object' ? 'an object' : expected === 'array' ? 'a list' : `a ${expected}`}${what}, got ${kindOf(value)}`;
    }
    if (issue.code === 'invalid_value') return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${what}, got ${kindOf(value)}`;
    return `${field}: ${issue.message}${what}`;
  });
  return `invalid ${method} request: ${problems.join('; ')}`;
}

/**
 * Handles `method` on `server`: params are checked against `params` (an SDK params schema) first;
 * a failure is `-32602` with {@link describeParamsError}'s sentence, `fields` naming what each
 * field is for. The SDK's own pre-parse of the whole request is bypassed, on purpose.
 */
export function onRequest<P>(
  server: Server,
  method: string,
  params: z.ZodType<P>,
  fields: Readonly<Record<string, string>>,
  handler: (params: P, extra: RequestExtra) => unknown,
): void {
  const route = z.looseObject({ method: z.literal(method) });
  const handle = async (request: { params?: unknown }, extra: RequestExtra) => {
    const parsed = params.safeParse(request.params ?? {});
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, describeParamsError(method, parsed.error, request.params, fields));
    return handler(parsed.data, extra);
  };
  // Protocol's registration, not Server's: Server's wraps tools/call in its own parse of the whole
  // request (answering a zod dump) before any handler runs.
  (Protocol.prototype.setRequestHandler as (this: Server, schema: z.ZodType, handler: (request: { params?: unknown }, extra: RequestExtra) => Promise<unknown>) => void).call(server, route, handle);
}
