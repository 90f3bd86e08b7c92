/**
 * Armature tool results as MCP `CallToolResult`s: a value that is a JSON object travels as
 * `structuredContent` (valid against the tool's `outputSchema` when it has one) with the same JSON
 * as text for clients that read only text; other values as text. A failure is `isError: true` with
 * a readable text (code, message, traceback, hint) and the structured error in `_meta`, because a
 * tool's output schema describes its successes only.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../kernel/tool-contract.ts';
import { errorLine } from '../kernel/errors.ts';

/** `_meta` key of the structured error of a failed call. */
export const ERROR_META_KEY = 'armature/error';

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The MCP result of an Armature tool call. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.ok) {
    const { value } = result;
    if (isPlainObject(value)) return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
    return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value ?? null) }] };
  }
  const { error, hint } = result;
  const details = isPlainObject(error.details) ? error.details : {};
  const lines = [errorLine(error)];
  if (typeof details.stdout === 'string' && details.stdout) lines.push(`stdout:\n${details.stdout.trimEnd()}`);
  if (typeof details.stderr === 'string' && details.stderr) lines.push(`stderr:\n${details.stderr.trimEnd()}`);
  if (typeof details.traceback === 'string' && details.traceback) lines.push(details.traceback.trimEnd());
  if (hint) lines.push(`hint: ${hint}`);
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }], _meta: { [ERROR_META_KEY]: hint ? { ...error, hint } : error } };
}
