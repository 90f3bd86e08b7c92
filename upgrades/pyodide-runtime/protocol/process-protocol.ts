/**
 * The protocol between a runtime in `process` isolation (the host, `process-runtime.ts`) and its
 * confined child process (`process/process-child.ts`), which runs the Pyodide runtime itself. Frames of
 * V8-serialized messages (`src/sandbox/frames.ts`) over fd 3; every message has `type` and `id`.
 * The host validates everything the child sends: the child runs Python and is not trusted.
 *
 * Host -> child: `start` (once), `call` (an API method), `tool-result`, `fetch-result`,
 * `cache-result`, `interrupt`, `abort` (of one run), `wake`.
 * Child -> host: `hello` (its channel is up), `result` (of a `call`), `event`, `state`, `tool`,
 * `bridge-call`, `fetch`, `cache` (the start-up snapshot, which the host keeps), `warn` (what the
 * runtime would print with `console.warn`).
 */
import * as z from 'zod';
import { FetchedSchema, NetworkPolicySchema, WireErrorSchema } from '../../../src/sandbox/protocol.ts';
import { PythonErrorSchema } from './protocol.ts';

const id = z.string().min(1).max(64);
const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'a Uint8Array');
/** Strings the child reports (names, messages): bounded, so a message cannot grow the host's memory unchecked. */
const text = (max: number) => z.string().max(max);

/** The runtime options the child's runtime is made with (functions stay in the host). */
export const ChildOptionsSchema = z.object({
  indexURL: z.string(),
  packageIndexURL: z.string(),
  workerUrl: z.string(),
  defaultTimeoutMs: z.number().positive(),
  interruptGraceMs: z.number().nonnegative(),
  resignalMs: z.number().positive(),
  maxSyncBytes: z.number().positive(),
  stdoutFlushMs: z.number().positive(),
  maxResultOutputChars: z.number().positive(),
  initTimeoutMs: z.number().positive(),
  prestartOnTimeout: z.boolean(),
  bridgePollMs: z.number().nonnegative(),
  requestPollMs: z.number().nonnegative(),
  fastExecute: z.boolean(),
  /** Whether to restore and make start-up snapshots, kept by the host (`cache` messages). */
  snapshot: z.boolean(),
  /**
   * The host's snapshot cache folder, when snapshots persist on disk: the child reads its own
   * snapshot files there itself (read-only; a 20 MB snapshot through the message pipe took ~100 ms).
   */
  snapshotFolder: z.string().optional(),
  /** The child's own package download folder (it may write there and nowhere else). */
  packageCacheDir: z.string().optional(),
  maxResultBytes: z.number().positive(),
  maxToolArgBytes: z.number().positive(),
  maxToolAnswerBytes: z.number().positive(),
  maxHeapMb: z.number().min(64).max(4096),
  network: NetworkPolicySchema,
  transport: z.enum(['shared-memory', 'jspi', 'async', 'auto']),
});
export type ChildOptions = z.infer<typeof ChildOptionsSchema>;

const ModuleFileSchema = z.object({ path: z.string(), source: z.string() });

export const StartMessageSchema = z.object({
  type: z.literal('start'),
  id,
  options: ChildOptionsSchema,
  modules: z.array(ModuleFileSchema),
});

/** The API methods the host calls in the child. */
export const MethodSchema = z.enum(['init', 'execute', 'installPackage', 'listPackages', 'syncWorkspace', 'restart', 'reset', 'setPythonModules', 'dispose']);
export type Method = z.infer<typeof MethodSchema>;

export const CallMessageSchema = z.object({ type: z.literal('call'), id, method: MethodSchema, args: z.array(z.unknown()).max(4) });
export const ToolResultMessageSchema = z.object({
  type: z.literal('tool-result'),
  id,
  result: z.union([
    z.object({ ok: z.literal(true), value: z.unknown() }),
    z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }), hint: z.string().optional() }),
  ]),
});
export const ChildFetchResultSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('fetch-result'), id, ok: z.literal(true), response: FetchedSchema }),
  z.object({ type: z.literal('fetch-result'), id, ok: z.literal(false), error: WireErrorSchema }),
]);
export const InterruptMessageSchema = z.object({ type: z.literal('interrupt'), id });
/** The answer to a `cache` request: the blob (`get`), the keys (`keys`), nothing (`put`, `delete`), or why not. */
export const CacheResultMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('cache-result'), id, ok: z.literal(true), value: z.union([bytes, z.array(z.string()), z.undefined()]) }),
  z.object({ type: z.literal('cache-result'), id, ok: z.literal(false), message: z.string() }),
]);
/** The caller cancelled this run (`execute`'s `signal`): interrupt it, or do not start it. */
export const AbortRunMessageSchema = z.object({ type: z.literal('abort'), id, runId: z.string().max(200) });
/** An answer waits in the tool pipe for the worker that went to sleep (see `src/bridge/tool-pipe.ts`). */
export const WakeMessageSchema = z.object({ type: z.literal('wake'), id });

export const ToChildSchema = z.discriminatedUnion('type', [
  StartMessageSchema,
  CallMessageSchema,
  ToolResultMessageSchema,
  ChildFetchResultSchema,
  CacheResultMessageSchema,
  InterruptMessageSchema,
  AbortRunMessageSchema,
  WakeMessageSchema,
]);
export type ToChild = z.infer<typeof ToChildSchema>;

// Child -> host.

export const HelloMessageSchema = z.object({ type: z.literal('hello'), id });

const runId = text(200);
const stage = z.enum(['fetch', 'compile', 'stdlib', 'ready']);
const status = z.enum(['idle', 'loading', 'ready', 'busy', 'restarting', 'error']);

/** The events a child may report: the runtime's own, each with its payload checked. */
export const ChildEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('python:progress'), payload: z.object({ stage, percent: z.number().min(0).max(100), message: text(1000).optional() }) }),
  z.object({ type: z.literal('python:state'), payload: z.object({ status, message: text(64 * 1024).optional() }) }),
  z.object({ type: z.literal('python:started'), payload: z.object({ runId }) }),
  z.object({ type: z.literal('python:stdout'), payload: z.object({ runId, chunk: text(4 * 1024 * 1024) }) }),
  z.object({ type: z.literal('python:stderr'), payload: z.object({ runId, chunk: text(4 * 1024 * 1024) }) }),
  z.object({
    type: z.literal('python:finished'),
    payload: z.object({ runId, ok: z.boolean(), executionTime: z.number(), errorType: text(200).optional() }),
  }),
  z.object({ type: z.literal('python:package-installed'), payload: z.object({ name: text(200), version: text(200) }) }),
]);
export type ChildEvent = z.infer<typeof ChildEventSchema>;
export const EventMessageSchema = z.object({ type: z.literal('event'), id, event: ChildEventSchema });

export const StateSchema = z.object({
  status,
  pythonVersion: text(64).optional(),
  pyodideVersion: text(64).optional(),
  transport: z.enum(['shared-memory', 'jspi', 'async']).optional(),
  packages: z.array(z.object({ name: text(200), version: text(200) })).max(10_000),
  executions: z.number(),
  memoryBytes: z.number().optional(),
  lastError: PythonErrorSchema.optional(),
  restarts: z.number(),
  fromSnapshot: z.boolean().optional(),
});
export const StateMessageSchema = z.object({ type: z.literal('state'), id, state: StateSchema });
/** The answer to a `call`, with the runtime's state after it (so no separate `state` message is needed). */
export const ResultMessageSchema = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('result'), id, ok: z.literal(true), value: z.unknown(), state: StateSchema.optional() }),
  z.object({ type: z.literal('result'), id, ok: z.literal(false), error: PythonErrorSchema, state: StateSchema.optional() }),
]);

export const ToolMessageSchema = z.object({
  type: z.literal('tool'),
  id,
  name: z.string(),
  args: z.unknown(),
  instance: z.string().optional(),
});
export const BridgeCallMessageSchema = z.object({
  type: z.literal('bridge-call'),
  id,
  call: z.object({ name: text(200), argBytes: z.number(), resultBytes: z.number(), durationMs: z.number(), ok: z.boolean() }),
});
export const ChildFetchSchema = z.object({
  type: z.literal('fetch'),
  id,
  url: text(8192),
  method: text(16),
  headers: z.array(z.tuple([text(1024), text(16 * 1024)])).max(256),
  body: z.union([z.string(), bytes]).optional(),
});
/**
 * The child's start-up snapshot cache (a `BlobCache`), kept by the host apart from the snapshots of
 * unconfined runtimes: a snapshot is code, and one made by a child is only ever given to children.
 */
export const CacheMessageSchema = z.discriminatedUnion('op', [
  z.object({ type: z.literal('cache'), id, op: z.literal('get'), key: text(200) }),
  z.object({ type: z.literal('cache'), id, op: z.literal('put'), key: text(200), bytes }),
  z.object({ type: z.literal('cache'), id, op: z.literal('delete'), key: text(200) }),
  z.object({ type: z.literal('cache'), id, op: z.literal('keys') }),
]);

/** A warning of the child's runtime (e.g. a snapshot that did not restore), printed by the host. */
export const WarnMessageSchema = z.object({ type: z.literal('warn'), id, message: text(4096) });

export const FromChildSchema = z.discriminatedUnion('type', [
  HelloMessageSchema,
  ResultMessageSchema,
  EventMessageSchema,
  StateMessageSchema,
  ToolMessageSchema,
  BridgeCallMessageSchema,
  ChildFetchSchema,
  CacheMessageSchema,
  WarnMessageSchema,
]);
export type FromChild = z.infer<typeof FromChildSchema>;

// What the host accepts as the value of a `result`, per method (the child runs Python: checked too).

/** The value of an `execute` call. */
export const ExecuteAnswerSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown(), stdout: z.string(), stderr: z.string(), executionTime: z.number(), runId: z.string(), notice: z.string().max(4096).optional() }),
  z.object({
    ok: z.literal(false),
    error: PythonErrorSchema,
    hint: z.string().optional(),
    stdout: z.string(),
    stderr: z.string(),
    executionTime: z.number(),
    runId: z.string(),
    notice: z.string().max(4096).optional(),
  }),
]);
/** The value of an `installPackage` call. */
export const InstallAnswerSchema = z.union([
  z.object({ ok: z.literal(true), installed: z.array(z.string().max(1000)).max(10_000) }),
  z.object({ ok: z.literal(false), error: PythonErrorSchema, hint: z.string().optional() }),
]);
/** The value of a `listPackages` call. */
export const PackagesAnswerSchema = StateSchema.shape.packages;
/** The value of a `syncWorkspace` call: the report, and the files Python changed (the only way files come back). */
export const SyncAnswerSchema = z.object({
  report: z.object({
    direction: z.enum(['in', 'out', 'both']),
    in: z.object({ count: z.number(), bytes: z.number(), skipped: z.array(z.string()) }).optional(),
    out: z.object({ count: z.number(), bytes: z.number(), deleted: z.array(z.string()), skipped: z.array(z.string()) }).optional(),
  }),
  written: z.array(z.object({ path: z.string().max(1024), data: bytes })),
});
