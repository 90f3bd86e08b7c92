/**
 * Tool results too large for one message. The SDK's stdio client reads one line of at most 10 MiB
 * and drops the connection past it (`-32000 Connection closed`): a 6 MB Python string already
 * ended the session. A result whose JSON passes `maxResultBytes` is kept whole as a workspace file
 * (`mcp-results/<session>/<call>.json`, or, for `read_file`, the file it read) and the client gets
 * a `resource_link` to it, a short preview and a structured value cut down to fit (long strings
 * and lists shortened, so it still matches the tool's output schema). The same holds on every
 * transport. A session's kept results are deleted when it ends.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mimeTypeOf, workspaceUri } from './resources.ts';

/** Default of `maxResultBytes`: 1 MiB of JSON. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
/** Characters of preview in the text of a linked result. */
export const PREVIEW_CHARS = 2000;
/** `_meta` key describing a result that was linked instead of sent. */
export const LARGE_RESULT_META_KEY = 'armature/large-result';
/** Folder of kept results in the workspace. */
export const RESULTS_FOLDER = 'mcp-results';

/** What kept results are written to (the Workspace API, structurally). */
export interface ResultFiles {
  write(path: string, data: string): Promise<unknown>;
  delete(path: string): Promise<boolean>;
  stat(path: string): { size: number } | undefined;
  list(prefix?: string): { path: string }[];
}

/** Bytes of the JSON a result is sent as, near enough: its text blocks, and its structured value (about the size of its text). */
export function resultBytes(result: CallToolResult): number {
  let bytes = 0;
  for (const c of result.content) {
    if (c.type === 'text') bytes += Buffer.byteLength(c.text);
    else if (c.type === 'image' || c.type === 'audio') bytes += c.data.length;
    else bytes += JSON.stringify(c).length;
  }
  return result.structuredContent === undefined ? bytes : bytes * 2;
}

/** `value` cut down to about `budget` characters of JSON, keeping its shape: strings and lists shortened, keys kept. */
export function shrink(value: unknown, budget = PREVIEW_CHARS): unknown {
  if (typeof value === 'string') return value.length <= budget ? value : `${value.slice(0, budget)}… [${value.length - budget} more characters]`;
  if (Array.isArray(value)) {
    const room = Math.max(1, Math.floor(budget / 100));
    return value.slice(0, room).map((v) => shrink(v, Math.floor(budget / Math.min(room, value.length || 1))));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return Object.fromEntries(entries.map(([k, v]) => [k, shrink(v, Math.max(200, Math.floor(budget / (entries.length || 1))))]));
  }
  return value;
}

/** Human size: `6.3 MB`. */
const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`);

/** Options of {@link linkLargeResult}. */
export interface LinkOptions {
  /** The tool that was called, and the call's id (the kept file's name). */
  tool: string;
  callId: string;
  session: string;
  /** The tool's value (successes) — kept whole; failures keep their text. */
  value?: unknown;
  limit: number;
  files?: ResultFiles;
}

/**
 * The result to send instead of `result`, which is over `limit`: a preview, a resource_link to
 * the whole and (for a success with structured content) a shrunk structured value. Without a
 * workspace to keep it in, the preview says the rest is lost and how to get less.
 */
export async function linkLargeResult(result: CallToolResult, bytes: number, o: LinkOptions): Promise<CallToolResult> {
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  const preview = text.slice(0, PREVIEW_CHARS);
  const more = text.length > PREVIEW_CHARS ? `\n… [${text.length - PREVIEW_CHARS} more characters]` : '';
  const over = `The result of ${o.tool} is ${size(bytes)}, over this server's ${size(o.limit)} limit for one result`;
  const shrunk = result.structuredContent === undefined ? {} : { structuredContent: shrink(result.structuredContent) as Record<string, unknown> };
  let kept: { uri: string; path: string; bytes: number } | undefined;
  if (o.files) {
    const read = o.tool === 'read_file' && !result.isError ? (o.value as { path?: unknown } | undefined)?.path : undefined;
    const stat = typeof read === 'string' ? o.files.stat(read) : undefined;
    if (typeof read === 'string' && stat) {
      // The file it read is the whole result: no copy.
      kept = { uri: workspaceUri(read), path: read, bytes: stat.size };
    } else {
      const path = `${RESULTS_FOLDER}/${o.session}/${o.callId}.${result.isError ? 'txt' : 'json'}`;
      const data = result.isError || o.value === undefined ? text : JSON.stringify(o.value);
      try {
        await o.files.write(path, data);
        kept = { uri: workspaceUri(path), path, bytes: Buffer.byteLength(data) };
      } catch {
        // The workspace refused it (its size or quota): the preview says so below.
      }
    }
  }
  if (!kept) {
    return {
      ...(result.isError ? { isError: true } : {}),
      content: [{ type: 'text', text: `${over} (--max-result-bytes), and it could not be kept in the workspace: ask for less (write large data to a workspace file and read it in parts). Its start:\n${preview}${more}` }],
      ...shrunk,
      _meta: { ...result._meta, [LARGE_RESULT_META_KEY]: { bytes, limit: o.limit } },
    };
  }
  const how = `read it with resources/read ${kept.uri}, or from Python in execute_python: open("/workspace/${kept.path}")`;
  return {
    ...(result.isError ? { isError: true } : {}),
    content: [
      { type: 'text', text: `${over} (--max-result-bytes): the whole of it is the workspace file ${kept.path} (${size(kept.bytes)}); ${how}. Its start:\n${preview}${more}` },
      { type: 'resource_link', uri: kept.uri, name: kept.path, mimeType: mimeTypeOf(kept.path), size: kept.bytes, description: `The whole result of ${o.tool} (call ${o.callId}).` },
    ],
    ...shrunk,
    _meta: { ...result._meta, [LARGE_RESULT_META_KEY]: { uri: kept.uri, bytes, limit: o.limit } },
  };
}

/** Deletes the results kept for `session` (when it ends). */
export async function deleteKeptResults(files: ResultFiles, session: string): Promise<void> {
  for (const f of files.list(`${RESULTS_FOLDER}/${session}`)) await files.delete(f.path).catch(() => false);
}
