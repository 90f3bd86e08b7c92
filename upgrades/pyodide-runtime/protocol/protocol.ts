/**
 * The one message protocol between the PyodideRuntime host and its worker (a module Web Worker
 * in the browser, a `worker_threads` worker in Node). Every message has `type` and `id`; both
 * sides validate what they receive with these schemas; errors cross as `{ type, message, traceback }`.
 *
 * Requests (host -> worker) are answered by exactly one `response` with the same `id`. Progress,
 * stream chunks and tool calls are worker-initiated and carry the id of the request they belong to.
 */
import * as z from 'zod';
import { FetchedSchema, NetworkPolicySchema, WireErrorSchema } from '../../../src/sandbox/protocol.ts';

/** The pinned Pyodide version (the npm package the worker loads). */
export const PYODIDE_VERSION = '0.29.5';
/** Default package index: the official CDN folder of the pinned version. */
export const DEFAULT_PACKAGE_INDEX = `https://cdn.jsdelivr.net/pyodide/v${PYODIDE_VERSION}/full/`;

const id = z.string().min(1);
const sab = z.custom<SharedArrayBuffer>((v) => typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer, 'a SharedArrayBuffer');
const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'a Uint8Array');

/** How `call_tool` reaches the main thread. */
export const TransportSchema = z.enum(['shared-memory', 'jspi', 'async']);
export type Transport = z.infer<typeof TransportSchema>;

/** A Python error as it crosses the boundary. */
export const PythonErrorSchema = z.object({
  type: z.string(),
  message: z.string(),
  traceback: z.string(),
  /** 1-based line of a SyntaxError. */
  line: z.number().optional(),
  /** 1-based column of a SyntaxError. */
  column: z.number().optional(),
});
export type PythonErrorInfo = z.infer<typeof PythonErrorSchema>;

/** A file handed to or read back from Python's file system. */
export const FileDataSchema = z.object({ path: z.string(), data: bytes, mtime: z.number().optional() });
export type FileData = z.infer<typeof FileDataSchema>;

export const InitRequestSchema = z.object({
  type: z.literal('init'),
  id,
  indexURL: z.string(),
  packageIndexURL: z.string(),
  /** Node: the folder Pyodide keeps downloaded packages in (else it makes one named after the URL). */
  packageCacheDir: z.string().optional(),
  interrupt: sab.optional(),
  bridge: z.object({ control: sab, data: sab, request: sab }).optional(),
  transport: TransportSchema,
  stdoutFlushMs: z.number().positive(),
  /** The shared output ring (see src/bridge/output-ring.ts); without it output is posted as `stream`. */
  output: sab.optional(),
  /** Python modules to put on sys.path before user code runs (generated tool modules). */
  modules: z.array(z.object({ path: z.string(), source: z.string() })).default([]),
  /**
   * A start-up snapshot to restore instead of starting Python anew (the host reads it: the
   * worker never touches the snapshot cache itself).
   */
  snapshot: bytes.optional(),
  /**
   * When Python starts anew (no `snapshot`, or it failed to restore), take a start-up snapshot
   * and return it in the `init` response.
   */
  makeSnapshot: z.boolean().default(false),
  /** Compile user code directly (false: always through Pyodide's CodeRunner). */
  fastExecute: z.boolean().default(true),
  /** How long the worker keeps its event loop awake after each response, in ms (0: not at all). */
  pollMs: z.number().min(0).default(0),
  /**
   * Confine what Python reaches (see `worker/confine.ts`): always in browsers, and in Node inside
   * the confined child process. `network` is what Python's `fetch` may reach.
   */
  confine: z.object({ network: NetworkPolicySchema }).optional(),
  /** In a confined Node child: the file descriptor of the pipe `call_tool` uses to reach the host (see `src/bridge/tool-pipe.ts`). */
  toolPipe: z.object({ fd: z.number().int().nonnegative(), wake: sab }).optional(),
  /** Most bytes Python's heap may take (`maxHeapMb`); at or above 4 GiB the heap's own maximum applies. */
  heapLimitBytes: z.number().positive().optional(),
  /** Size limits the worker enforces before anything leaves it (see `maxResultBytes`, `maxToolArgBytes`). */
  limits: z.object({ resultBytes: z.number().positive(), toolArgBytes: z.number().positive() }).default({ resultBytes: 16 * 1024 * 1024, toolArgBytes: 16 * 1024 * 1024 }),
});

export const ExecuteRequestSchema = z.object({ type: z.literal('execute'), id, runId: z.string(), code: z.string() });
export const InstallRequestSchema = z.object({
  type: z.literal('install'),
  id,
  /** A package name, a wheel URL, or (Node) a wheel path; or wheel bytes with their file name. */
  spec: z.union([z.object({ source: z.string() }), z.object({ fileName: z.string(), bytes })]),
});
export const ListPackagesRequestSchema = z.object({ type: z.literal('list-packages'), id });
export const ResetRequestSchema = z.object({ type: z.literal('reset'), id });
export const WriteFilesRequestSchema = z.object({ type: z.literal('write-files'), id, root: z.string(), files: z.array(FileDataSchema) });
export const ReadChangedRequestSchema = z.object({
  type: z.literal('read-changed'),
  id,
  root: z.string(),
  /** Paths (relative to root) with the mtime they had when written in; others are new. */
  known: z.record(z.string(), z.number()),
  maxBytes: z.number().positive(),
});
export const MemoryRequestSchema = z.object({ type: z.literal('memory'), id });
/** Answer to a worker's `fetch` (performed by the host under the network policy). */
export const FetchResultMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('fetch-result'), id, fetchId: z.number(), ok: z.literal(true), response: FetchedSchema }),
  z.object({ type: z.literal('fetch-result'), id, fetchId: z.number(), ok: z.literal(false), error: WireErrorSchema }),
]);
/** Answer to a `tool-call` on the message transports (jspi, async). */
export const ToolResultMessageSchema = z.object({ type: z.literal('tool-result'), id, callId: z.number(), status: z.number(), payload: bytes });

/**
 * Node: load Pyodide's JavaScript now, before `init` (a worker started ahead of its options).
 * Nothing answers it; a failure here is met again, and reported, by `init`.
 */
export const PreloadRequestSchema = z.object({ type: z.literal('preload'), id, indexURL: z.string(), confine: z.boolean() });

export const HostMessageSchema = z.discriminatedUnion('type', [
  PreloadRequestSchema,
  InitRequestSchema,
  ExecuteRequestSchema,
  InstallRequestSchema,
  ListPackagesRequestSchema,
  ResetRequestSchema,
  WriteFilesRequestSchema,
  ReadChangedRequestSchema,
  MemoryRequestSchema,
  ToolResultMessageSchema,
  FetchResultMessageSchema,
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;
export type InitRequest = z.infer<typeof InitRequestSchema>;

export const ProgressMessageSchema = z.object({
  type: z.literal('progress'),
  id,
  stage: z.enum(['fetch', 'compile', 'stdlib', 'ready']),
  percent: z.number().min(0).max(100),
  message: z.string().optional(),
});
export const StreamMessageSchema = z.object({ type: z.literal('stream'), id, runId: z.string(), stream: z.enum(['stdout', 'stderr']), chunk: z.string() });
export const ToolCallMessageSchema = z.object({
  type: z.literal('tool-call'),
  id,
  callId: z.number(),
  name: z.string(),
  args: z.unknown(),
  /** Which registration of a tool registered several times (Python's instance_id). */
  instance: z.string().optional(),
  /** Bytes of the arguments' JSON as Python wrote it (for the bridge's statistics). */
  argBytes: z.number().optional(),
});
/** Python's `fetch` of a URL its network policy allows: the host performs it and answers `fetch-result`. */
export const FetchMessageSchema = z.object({
  type: z.literal('fetch'),
  id,
  fetchId: z.number(),
  url: z.string().max(8192),
  method: z.string().max(16),
  headers: z.array(z.tuple([z.string().max(1024), z.string().max(16 * 1024)])).max(256),
  body: z.union([z.string(), bytes]).optional(),
});
/** Output waits in the shared ring; `full` when the worker is blocked until it is drained. */
export const OutputReadyMessageSchema = z.object({ type: z.literal('output-ready'), id, full: z.boolean().optional() });
/** A `call_tool` request is waiting in the shared request slot (sent only when the host is not polling it). */
export const ToolCallReadyMessageSchema = z.object({ type: z.literal('tool-call-ready'), id, callId: z.number() });
/** After a run: Python's heap is too full for real work (see `worker/heap.ts`); the host restarts the worker. */
export const HeapFullSchema = z.object({ usedBytes: z.number(), limitBytes: z.number() });
export type HeapFull = z.infer<typeof HeapFullSchema>;
export const ResponseMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('response'), id, ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('response'), id, ok: z.literal(false), error: PythonErrorSchema, fatal: z.boolean().optional(), heapFull: HeapFullSchema.optional() }),
]);

// Discriminated on `type`, so each message is checked against its own schema only (this runs for
// every stream chunk and tool call).
export const WorkerMessageSchema = z.discriminatedUnion('type', [
  ProgressMessageSchema,
  StreamMessageSchema,
  ToolCallMessageSchema,
  ToolCallReadyMessageSchema,
  OutputReadyMessageSchema,
  FetchMessageSchema,
  ResponseMessageSchema,
]);
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;
export type ResponseMessage = z.infer<typeof ResponseMessageSchema>;

/** `response.value` of an `init` request. */
export interface InitResult {
  pythonVersion: string;
  pyodideVersion: string;
  transport: Transport;
  /** Whether the interpreter was restored from the snapshot in the `init` request. */
  fromSnapshot: boolean;
  /** Why the snapshot in the `init` request could not be restored (Python then started anew). */
  snapshotError?: string;
  /** The snapshot asked for with `makeSnapshot` (transferred), when it could be made. */
  snapshot?: Uint8Array;
}

/** `response.value` of an `execute` request. */
export interface ExecuteValue {
  value: unknown;
  /** WebAssembly heap size after the run, when measurable. */
  memoryBytes?: number;
  /** Set when the run left the heap too full for real work. */
  heapFull?: HeapFull;
}

/** One installed package. */
export interface PackageInfo {
  name: string;
  version: string;
}

/** `response.value` of a `read-changed` request. */
export interface ReadChangedResult {
  files: FileData[];
  /** Known paths no longer present in Python's file system. */
  deleted: string[];
  /** Files skipped for exceeding the size limit. */
  skipped: string[];
}

/**
 * Validates a message from the host. `execute` — the one sent for every run — is checked field by
 * field without zod when it is well-formed (a few type checks instead of a schema walk); anything
 * else, and any `execute` that fails the check, goes through the full schema and its errors.
 */
export function parseHostMessage(msg: unknown): { ok: true; value: HostMessage } | { ok: false; error: string } {
  const m = msg as { type?: unknown; id?: unknown; runId?: unknown; code?: unknown } | null;
  if (typeof m === 'object' && m !== null && m.type === 'execute' && typeof m.id === 'string' && m.id !== '' && typeof m.runId === 'string' && typeof m.code === 'string') {
    return { ok: true, value: m as HostMessage };
  }
  return parseMessage(HostMessageSchema, msg);
}

/**
 * Validates a message from the worker. A successful `response` and `output-ready` — sent for
 * every run — are checked field by field without zod when well-formed (a response's `value` is
 * anything by contract); anything else goes through the full schema and its errors.
 */
export function parseWorkerMessage(msg: unknown): { ok: true; value: WorkerMessage } | { ok: false; error: string } {
  const m = msg as { type?: unknown; id?: unknown; ok?: unknown; full?: unknown } | null;
  if (typeof m === 'object' && m !== null && typeof m.id === 'string' && m.id !== '') {
    if (m.type === 'response' && m.ok === true) return { ok: true, value: m as WorkerMessage };
    if (m.type === 'output-ready' && (m.full === undefined || typeof m.full === 'boolean')) return { ok: true, value: m as WorkerMessage };
  }
  return parseMessage(WorkerMessageSchema, msg);
}

/**
 * Validates `msg` with `schema`; on failure returns a description naming the message type and
 * the problem, so a bad message is reported instead of crashing either side.
 */
export function parseMessage<S extends z.ZodType>(schema: S, msg: unknown): { ok: true; value: z.infer<S> } | { ok: false; error: string } {
  const r = schema.safeParse(msg);
  if (r.success) return { ok: true, value: r.data };
  const type = typeof msg === 'object' && msg && 'type' in msg ? String((msg as { type: unknown }).type) : typeof msg;
  return { ok: false, error: `invalid ${type} message: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}` };
}
