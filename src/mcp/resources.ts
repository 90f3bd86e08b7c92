/**
 * MCP resources Armature offers: one SKILL.md per tool namespace (`armature://skills/<namespace>`)
 * and the workspace's files (`armature://workspace/<path>`, text as text, anything else as base64).
 */
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { clip, quote } from '../kernel/bounded.ts';

/** What the resources are read from: the loaded modules' APIs, structurally. */
export interface ResourceSources {
  workspace?: {
    list(prefix?: string): { path: string; size: number; mtime: number }[];
    stat(path: string): { path: string; size: number; mtime: number } | undefined;
    read(path: string): Uint8Array;
  };
  python?: { listSkills(): { namespace: string; tools: string[] }[]; readSkill(namespace: string): string };
}

/** Prefix of skills' URIs. */
export const SKILLS = 'armature://skills/';
/** Prefix of workspace files' URIs. */
export const WORKSPACE = 'armature://workspace/';
/** The template of workspace files' URIs. */
export const WORKSPACE_TEMPLATE = `${WORKSPACE}{+path}`;
/** The template of skills' URIs. */
export const SKILLS_TEMPLATE = `${SKILLS}{namespace}`;
/** Resources per `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 200;

const MIME: Record<string, string> = {
  md: 'text/markdown', txt: 'text/plain', csv: 'text/csv', json: 'application/json', py: 'text/x-python', html: 'text/html', js: 'text/javascript',
  ts: 'text/plain', yaml: 'application/yaml', yml: 'application/yaml', xml: 'application/xml', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg',
  gif: 'image/gif', svg: 'image/svg+xml', pdf: 'application/pdf', zip: 'application/zip',
};

/** A MIME type from a path's extension. Default: `application/octet-stream`. */
export function mimeTypeOf(path: string): string {
  return MIME[/\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

/** The URI of a workspace file (each path segment percent-encoded). */
export function workspaceUri(path: string): string {
  return WORKSPACE + path.split('/').map(encodeURIComponent).join('/');
}

/** Every resource, one page at a time: skills first, then workspace files by path. */
export function listResources(src: ResourceSources, cursor?: string): { resources: Resource[]; nextCursor?: string } {
  const all: Resource[] = [
    ...(src.python?.listSkills() ?? []).map((s): Resource => ({
      uri: SKILLS + s.namespace,
      name: `skill: ${s.namespace}`,
      title: `SKILL.md of ${s.namespace}`,
      description: `How to use the ${s.namespace} tools from Python: ${s.tools.join(', ')}.`,
      mimeType: 'text/markdown',
    })),
    ...(src.workspace?.list() ?? []).map((f): Resource => ({ uri: workspaceUri(f.path), name: f.path, mimeType: mimeTypeOf(f.path), size: f.size })),
  ];
  const start = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(start) || start < 0) throw new McpError(ErrorCode.InvalidParams, `invalid cursor ${quote(cursor)}; use the nextCursor of the previous page`);
  const page = all.slice(start, start + RESOURCE_PAGE_SIZE);
  return start + RESOURCE_PAGE_SIZE < all.length ? { resources: page, nextCursor: String(start + RESOURCE_PAGE_SIZE) } : { resources: page };
}

/** The templates clients can fill in. */
export function resourceTemplates(src: ResourceSources): ResourceTemplate[] {
  const out: ResourceTemplate[] = [];
  if (src.python) out.push({ uriTemplate: SKILLS_TEMPLATE, name: 'skill', title: 'SKILL.md of a tool namespace', mimeType: 'text/markdown' });
  if (src.workspace) out.push({ uriTemplate: WORKSPACE_TEMPLATE, name: 'workspace file', title: 'A file of the Armature workspace' });
  return out;
}

/** -32002: the MCP error for an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002;
/**
 * Largest resource sent whole, in bytes of its JSON: under the SDK stdio client's 10 MiB line
 * (past which it drops the connection), with room for the message around it.
 */
export const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

/** `data` of a resource error: the URI as given (bounded), not quoted again. */
const about = (uri: string) => ({ uri: clip(uri, 200) });

/** The path segments of a URI's tail, percent-decoded; -32602 naming the URI when one is malformed. */
function decodePath(uri: string, tail: string): string {
  try {
    return tail.split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `invalid resource URI ${quote(uri, 200)}: a malformed percent-encoding; encode each path segment with encodeURIComponent`, about(uri));
  }
}

/** Refuses contents too large for one message (-32603 would blame the server; this is the size). */
function checkSize(uri: string, bytes: number, hint: string): void {
  if (bytes > MAX_RESOURCE_BYTES) {
    throw new McpError(ErrorCode.InvalidRequest, `resource ${quote(uri, 200)} is ${bytes} bytes; one message carries at most ${MAX_RESOURCE_BYTES}: ${hint}`, { ...about(uri), bytes, limit: MAX_RESOURCE_BYTES });
  }
}

/**
 * The contents of `uri`. Throws an McpError: -32002 naming what exists when it does not, -32602 for
 * a malformed URI, -32600 for a resource too large for one message, -32603 when reading failed.
 */
export function readResource(src: ResourceSources, uri: string): ReadResourceResult {
  if (uri.startsWith(SKILLS) && src.python) {
    const ns = decodePath(uri, uri.slice(SKILLS.length));
    let text: string;
    try {
      text = src.python.readSkill(ns);
    } catch (e) {
      const code = (e as { code?: string }).code === 'SKILL_NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InternalError;
      throw new McpError(code, (e as Error).message, about(uri));
    }
    return { contents: [{ uri, mimeType: 'text/markdown', text }] };
  }
  if (uri.startsWith(WORKSPACE) && src.workspace) {
    const path = decodePath(uri, uri.slice(WORKSPACE.length));
    const stat = src.workspace.stat(path);
    if (!stat) throw new McpError(RESOURCE_NOT_FOUND, `no workspace file ${quote(path, 200)}; list them with resources/list`, about(uri));
    // A text file's JSON is about its size; base64 is a third more.
    checkSize(uri, Math.ceil(stat.size * 1.05), `read it in parts from Python (execute_python: open("/workspace/${path}").read(n)), or write a smaller file`);
    let data: Uint8Array;
    try {
      data = src.workspace.read(path);
    } catch (e) {
      throw new McpError(ErrorCode.InternalError, `could not read workspace file ${quote(path, 200)}: ${(e as Error).message}`, about(uri));
    }
    const mimeType = mimeTypeOf(path);
    try {
      return { contents: [{ uri, mimeType: mimeType === 'application/octet-stream' ? 'text/plain' : mimeType, text: new TextDecoder('utf-8', { fatal: true }).decode(data) }] };
    } catch {
      checkSize(uri, Math.ceil((data.length * 4) / 3), `read it in parts from Python (execute_python: open("/workspace/${path}", "rb").read(n)), or write a smaller file`);
      let binary = '';
      for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
      return { contents: [{ uri, mimeType, blob: btoa(binary) }] };
    }
  }
  throw new McpError(RESOURCE_NOT_FOUND, `no resource ${quote(uri, 200)}: Armature serves ${[src.python && `${SKILLS}<namespace>`, src.workspace && `${WORKSPACE}<path>`].filter(Boolean).join(' and ') || 'no resources for this persona'}`, about(uri));
}
