/**
 * Armature tool results as MCP `CallToolResult`s: a value that is a JSON object travels as
 * `structuredContent` (valid against the tool's `outputSchema` when it has one) with the same JSON
 * as text for clients that read only text; other values as text. Images and audio in a value — an
 * MCP server's image passed through, or Python returning `{"type": "image", "mimeType", "data"}`
 * — also travel as image/audio content blocks, and the text names them instead of carrying their
 * base64. A failure is `isError: true` with a readable text (code, message, traceback, hint) and
 * the structured error in `_meta`, because a tool's output schema describes its successes only.
 */
import { AudioContentSchema, ContentBlockSchema, ImageContentSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResult } from '../kernel/tool-contract.ts';
import { errorLine } from '../kernel/errors.ts';

/** `_meta` key of the structured error of a failed call. */
export const ERROR_META_KEY = 'armature/error';

type Media = CallToolResult['content'][number] & { type: 'image' | 'audio' };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `v` as an image or audio content block, or undefined. */
function asMedia(v: unknown): Media | undefined {
  if (!isPlainObject(v) || (v.type !== 'image' && v.type !== 'audio')) return undefined;
  const parsed = (v.type === 'image' ? ImageContentSchema : AudioContentSchema).safeParse(v);
  return parsed.success ? (parsed.data as Media) : undefined;
}

/** The media blocks of a value: itself, a list of blocks, or one level into an object's fields (e.g. execute_python's `value`). */
function mediaOf(value: unknown, depth = 0): Media[] {
  const one = asMedia(value);
  if (one) return [one];
  if (Array.isArray(value)) return value.flatMap((v) => (depth < 2 ? mediaOf(v, depth + 1) : []));
  if (isPlainObject(value) && depth === 0) return Object.values(value).flatMap((v) => mediaOf(v, depth + 1));
  return [];
}

/** JSON text of `value` with each media block's data replaced by a note (the block itself travels beside it). */
function textWithoutMedia(value: unknown, media: readonly Media[]): string {
  const seen = new Set<unknown>(media.map((m) => m.data));
  return JSON.stringify(
    value,
    (key, v) => (key === 'data' && typeof v === 'string' && seen.has(v) ? `<${v.length} characters of base64: sent as a content block>` : v),
    2,
  );
}

/** The MCP result of an Armature tool call. */
export function toCallToolResult(result: ToolResult): CallToolResult {
  if (result.ok) {
    const { value } = result;
    // An MCP server's content blocks (text and an image, say), passed through as they came.
    if (Array.isArray(value) && value.length && value.every((v) => ContentBlockSchema.safeParse(v).success) && value.some((v) => asMedia(v))) {
      return { content: value as CallToolResult['content'] };
    }
    const media = typeof value === 'object' && value !== null ? mediaOf(value) : [];
    if (media.length) {
      const text = { type: 'text' as const, text: textWithoutMedia(value, media) };
      return isPlainObject(value) && !asMedia(value) ? { content: [text, ...media], structuredContent: value } : { content: [text, ...media] };
    }
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
