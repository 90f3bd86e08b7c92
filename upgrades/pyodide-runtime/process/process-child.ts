/**
 * Entry of the confined child of `process` isolation (bundled to plain JavaScript; see
 * `process-link.ts`). It runs the Pyodide runtime's host side — its worker thread, the interrupt
 * buffer, the `call_tool` slot and the output ring all stay inside this process — under Node's
 * permission model with an empty environment, and speaks `process-protocol.ts` with the real host
 * over fd 3: API calls in, results, events and state out; `call_tool`, fetches and the start-up
 * snapshot cache go to the host, which decides. Python runs in the worker, confined (`worker/confine.ts`).
 */
import { readFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { LoopSpinner } from '../../../src/bridge/loop-spinner.ts';
import { encodeFrame, FrameReader, FrameTooLargeError } from '../../../src/sandbox/frames.ts';
import type { Fetched } from '../../../src/sandbox/protocol.ts';
import { toWireError } from '../../../src/sandbox/agent-scope.ts';
import { ToChildSchema, type ChildOptions, type FromChild, type Method } from '../protocol/process-protocol.ts';
import { childSnapshotFile, SNAPSHOT_KEY } from './process-snapshots.ts';
import { parseMessage, type PythonErrorInfo } from '../protocol/protocol.ts';
import { createWorkerRuntime } from '../host/worker-runtime.ts';
import { resolveOptions } from '../host/runtime-options.ts';
import type { RuntimeCore, RuntimeHost, ToolCallHandler, WorkspaceLike } from '../host/runtime-types.ts';
import type { BlobCache } from '../../../src/platform/platform.ts';
import { spawnWorkerEarly } from '../host/worker-handle.ts';

// Started with its worker's script and Pyodide's folder (see `process-link.ts`): the worker starts,
// and loads Pyodide's JavaScript, while the host boots and sends the options; the runtime takes it.
const [workerUrl, indexURL] = process.argv.slice(2);
// Its failure is the runtime's to report when it takes the worker (spawnWorkerEarly keeps a handler on it).
if (workerUrl && indexURL) void spawnWorkerEarly(workerUrl, { indexURL, confine: true });

const channel = new Socket({ fd: 3, readable: true, writable: true });
/** The pipe the Pyodide worker itself reads and writes for `call_tool` (never read or written here). */
const TOOL_PIPE_FD = 4;
// Opening it as a socket (neither read nor written) makes the descriptor non-blocking, so the
// worker can spin on it before sleeping (see ToolPipeClient); kept referenced so it stays open.
// biome-ignore lint/correctness/noUnusedVariables: held, never used: the descriptor must stay open
const toolPipeHold = new Socket({ fd: TOOL_PIPE_FD, readable: false, writable: false });
/** Set and notified when the host says an answer waits in the pipe for a worker that went to sleep. */
const toolPipeWake = new SharedArrayBuffer(4);
/** Largest message this child sends; the host refuses longer ones anyway. Set by `start`. */
let maxSend = 64 * 1024 * 1024;

/**
 * Frames not yet written. Everything goes out at the end of the current turn, in one write —
 * except events during a call, which wait up to {@link EVENT_DELAY_MS} for the answer to go with
 * them: a small run then costs the host one wake-up, not one per event (a wake-up of a sleeping
 * process costs more than the run on virtual machines). Order is kept.
 */
let queued: Uint8Array[] = [];
/** Calls of the host being answered: each answer carries the state after it. */
let inCall = 0;
let flushTick = false;
let flushTimer: ReturnType<typeof setTimeout> | undefined;
/** Longest an event waits for the answer of the call in flight before it is written alone, in ms. */
const EVENT_DELAY_MS = 4;

function flush(): void {
  clearTimeout(flushTimer);
  flushTimer = undefined;
  const frames = queued;
  queued = [];
  if (frames.length === 1) channel.write(frames[0]);
  else if (frames.length > 1) {
    channel.cork();
    for (const f of frames) channel.write(f);
    channel.uncork();
  }
}

function send(msg: FromChild): void {
  queued.push(encodeFrame(msg, maxSend, `the ${msg.type} message`));
  if (msg.type === 'event' && inCall > 0) {
    flushTimer ??= setTimeout(flush, EVENT_DELAY_MS);
    return;
  }
  if (flushTick) return;
  flushTick = true;
  process.nextTick(() => {
    flushTick = false;
    flush();
  });
}

let runtime: RuntimeCore | undefined;
/**
 * Keeps this thread awake for `requestPollMs` after answering the host: the next call usually
 * comes at once (runs come in bursts), and waking a sleeping thread costs more than a small run.
 */
let spinner = new LoopSpinner(0);
let seq = 0;
const toolAnswers = new Map<string, (r: Awaited<ReturnType<ToolCallHandler>>) => void>();
const fetches = new Map<string, { resolve(r: Fetched): void; reject(e: Error): void }>();
/** The runs sent and not finished, by run id, to abort when the host says so. */
const runAborts = new Map<string, AbortController>();
const cacheOps = new Map<string, { resolve(v: unknown): void; reject(e: Error): void }>();

/** One operation on the host's store of this child's start-up snapshots. */
function cacheOp(req: { op: 'get' | 'delete'; key: string } | { op: 'put'; key: string; bytes: Uint8Array } | { op: 'keys' }): Promise<unknown> {
  const id = `k${++seq}`;
  return new Promise((resolve, reject) => {
    cacheOps.set(id, { resolve, reject });
    try {
      send({ type: 'cache', id, ...req });
    } catch (e) {
      cacheOps.delete(id);
      reject(e as Error);
    }
  });
}

/** The host's snapshot cache folder, when this child may read its snapshots there itself. */
let snapshotFolder: string | undefined;

/**
 * This child's snapshot under `key`, read from the host's cache folder: `undefined` when there is
 * none, `null` when it cannot be read here (then the host is asked).
 */
async function readOwnSnapshot(key: string): Promise<Uint8Array | undefined | null> {
  if (!snapshotFolder || !SNAPSHOT_KEY.test(key)) return null;
  try {
    const b = await readFile(join(snapshotFolder, childSnapshotFile(key)));
    // The worker is given the buffer itself: hand over one that holds exactly these bytes.
    return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer) : new Uint8Array(b);
  } catch (e) {
    return (e as { code?: string }).code === 'ENOENT' ? undefined : null;
  }
}

/** The start-up snapshot cache: the host keeps the blobs (this child may write nowhere but its package folder). */
const snapshotCache: BlobCache = {
  get: async (key) => {
    const own = await readOwnSnapshot(key);
    if (own !== null) return own;
    // A copy: the bytes arrive as a view into the received frame, at any offset; the worker is
    // given the buffer itself and reads it as 32-bit words.
    return ((await cacheOp({ op: 'get', key })) as Uint8Array | undefined)?.slice();
  },
  put: async (key, bytes) => void (await cacheOp({ op: 'put', key, bytes })),
  delete: async (key) => void (await cacheOp({ op: 'delete', key })),
  keys: () => cacheOp({ op: 'keys' }) as Promise<string[]>,
};

/** The files of the `syncWorkspace` in progress: the host sends them in, and takes back what Python changed. */
let syncing: { files: Map<string, { data: Uint8Array; mtime: number }>; written: { path: string; data: Uint8Array }[] } | undefined;
const workspace: WorkspaceLike = {
  list: () => [...(syncing?.files ?? new Map()).entries()].map(([path, f]) => ({ path, size: f.data.byteLength, mtime: f.mtime })),
  read: (path) => {
    const f = syncing?.files.get(path);
    if (!f) throw new Error(`[syncWorkspace] ${path} was not sent`);
    return f.data;
  },
  write: async (path, data) => {
    syncing?.written.push({ path, data });
  },
};

// The runtime's warnings (a snapshot that did not restore, ...) are the host's to print: this
// child's stderr is only kept for crash reports.
console.warn = (...args: unknown[]) => {
  try {
    send({ type: 'warn', id: 'warn', message: args.map(String).join(' ').slice(0, 4096) });
  } catch {
    // The channel is gone: nobody is left to tell.
  }
};

function sendState(): void {
  if (runtime) send({ type: 'state', id: 'state', state: runtime.getState() });
}

let stateQueued = false;
/** Sends the state once this turn is over, unless an answer to come will carry it. */
function stateSoon(): void {
  if (inCall > 0 || stateQueued) return;
  stateQueued = true;
  setImmediate(() => {
    stateQueued = false;
    if (inCall === 0) sendState();
  });
}

const host: RuntimeHost = {
  emit(type, payload) {
    send({ type: 'event', id: 'event', event: { type, payload } as never });
    // Changes between calls (a worker replaced in the background) reach the host on their own.
    if (type === 'python:state' || type === 'python:package-installed') stateSoon();
  },
  workspace,
};

const onToolCall: ToolCallHandler = (name, args, instance) =>
  new Promise((resolve) => {
    const id = `t${++seq}`;
    toolAnswers.set(id, resolve);
    try {
      send(instance === undefined ? { type: 'tool', id, name, args } : { type: 'tool', id, name, args, instance });
    } catch (e) {
      toolAnswers.delete(id);
      resolve({ ok: false, error: { code: e instanceof FrameTooLargeError ? 'ARGUMENTS_TOO_LARGE' : 'BRIDGE_FAILED', message: (e as Error).message } });
    }
  });

function fetchViaHost(req: { url: string; method: string; headers: [string, string][]; body?: string | Uint8Array }): Promise<Fetched> {
  const id = `f${++seq}`;
  return new Promise((resolve, reject) => {
    fetches.set(id, { resolve, reject });
    send({ type: 'fetch', id, ...req });
  });
}

function start(options: ChildOptions, modules: { path: string; source: string }[]): void {
  maxSend = Math.max(options.maxResultBytes, options.maxSyncBytes, options.maxToolArgBytes, 32 * 1024 * 1024) + 1024 * 1024;
  spinner = new LoopSpinner(options.requestPollMs);
  const { snapshot, snapshotFolder: folder, ...rest } = options;
  snapshotFolder = folder;
  const o = resolveOptions({ ...rest, isolation: 'thread', modules: () => modules, snapshot: snapshot ? 'persist' : 'off', snapshotCache });
  // The worker confines Python; what its policy allows the host performs.
  o.confine = true;
  o.fetcher = fetchViaHost;
  // call_tool goes from the worker to the host over this pipe, not through this thread.
  o.toolPipe = { fd: TOOL_PIPE_FD, wake: toolPipeWake };
  runtime = createWorkerRuntime(o, onToolCall, host);
  runtime.setToolCallHandler(onToolCall, (call) => send({ type: 'bridge-call', id: 'bridge', call }));
}

async function call(rt: RuntimeCore, method: Method, args: unknown[]): Promise<unknown> {
  switch (method) {
    case 'init':
      return rt.init();
    case 'execute': {
      const { aborted, ...opts } = (args[1] ?? {}) as { timeoutMs?: number; runId?: string; aborted?: boolean };
      // The host's `abort` for this run aborts it here, as the caller's signal does in-process.
      const cancel = new AbortController();
      if (aborted) cancel.abort();
      if (opts.runId !== undefined) runAborts.set(opts.runId, cancel);
      try {
        return await rt.execute(args[0] as string, { ...opts, signal: cancel.signal });
      } finally {
        if (opts.runId !== undefined && runAborts.get(opts.runId) === cancel) runAborts.delete(opts.runId);
      }
    }
    case 'installPackage':
      return rt.installPackage(args[0] as string | { fileName: string; bytes: Uint8Array });
    case 'listPackages':
      return rt.listPackages();
    case 'syncWorkspace': {
      const files = (args[1] ?? []) as { path: string; data: Uint8Array; mtime: number }[];
      syncing = { files: new Map(files.map((f) => [f.path, { data: f.data, mtime: f.mtime }])), written: [] };
      try {
        const report = await rt.syncWorkspace(args[0] as 'in' | 'out' | 'both');
        return { report, written: syncing.written };
      } finally {
        syncing = undefined;
      }
    }
    case 'restart':
      return rt.restart();
    case 'reset':
      return rt.reset();
    case 'setPythonModules':
      return rt.setPythonModules(args[0] as { path: string; source: string }[]);
    case 'dispose':
      return rt.dispose();
  }
}

function errorInfo(e: unknown): PythonErrorInfo {
  const info = (e as { info?: PythonErrorInfo }).info;
  if (info) return info;
  const w = toWireError(e);
  return { type: w.name || 'Error', message: w.message, traceback: '' };
}

const reader = new FrameReader(0xffff_ffff, {
  message(raw) {
    const parsed = parseMessage(ToChildSchema, raw);
    if (!parsed.ok) return;
    const msg = parsed.value;
    switch (msg.type) {
      case 'start':
        start(msg.options, msg.modules);
        sendState();
        return;
      case 'call': {
        const rt = runtime;
        if (!rt) return send({ type: 'result', id: msg.id, ok: false, error: { type: 'RuntimeNotReady', message: 'the child was not started', traceback: '' } });
        spinner.release();
        inCall++;
        const answer = (result: { ok: true; value: unknown } | { ok: false; error: PythonErrorInfo }) => {
          inCall--;
          const state = rt.getState();
          try {
            send({ type: 'result', id: msg.id, ...result, state });
          } catch (e) {
            send({ type: 'result', id: msg.id, ok: false, error: errorInfo(e), state });
          }
          spinner.hold();
        };
        void call(rt, msg.method, msg.args).then(
          (value) => answer({ ok: true, value }),
          (e) => answer({ ok: false, error: errorInfo(e) }),
        );
        return;
      }
      case 'tool-result': {
        const resolve = toolAnswers.get(msg.id);
        toolAnswers.delete(msg.id);
        resolve?.(msg.result);
        return;
      }
      case 'fetch-result': {
        const pending = fetches.get(msg.id);
        fetches.delete(msg.id);
        if (msg.ok) pending?.resolve(msg.response);
        else pending?.reject(Object.assign(new TypeError(msg.error.message), { code: msg.error.code }));
        return;
      }
      case 'cache-result': {
        const pending = cacheOps.get(msg.id);
        cacheOps.delete(msg.id);
        if (msg.ok) pending?.resolve(msg.value);
        else pending?.reject(new Error(msg.message));
        return;
      }
      case 'abort':
        runAborts.get(msg.runId)?.abort();
        return;
      case 'interrupt':
        runtime?.interrupt();
        return;
      case 'wake': {
        const word = new Int32Array(toolPipeWake);
        Atomics.store(word, 0, 1);
        Atomics.notify(word, 0);
        return;
      }
    }
  },
  oversize() {},
  malformed() {},
});
channel.on('data', (chunk: Buffer) => reader.push(chunk));
// The host went away: nothing is left to serve.
channel.on('close', () => process.exit(0));
channel.on('error', () => process.exit(0));
send({ type: 'hello', id: 'hello' });
