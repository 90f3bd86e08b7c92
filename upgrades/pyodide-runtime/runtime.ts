/**
 * PyodideRuntime, host side: Python (Pyodide 0.29.5) in a dedicated worker that always comes back.
 *
 * Design notes (for the blueprint):
 * - Files, one job each: `protocol.ts` (zod schemas of every message, both directions; both sides
 *   validate what they receive; errors cross as `{ type, message, traceback }`), `worker.ts` (the
 *   worker: Node `worker_threads` or a module Web Worker, no DOM), `worker-handle.ts` (the one
 *   adapter over the two worker kinds), `python-prelude.ts` (Python modules installed in every
 *   interpreter: the runner and the `call_tool` bridge), `clone-safety.ts` (the one
 *   `ensureStructuredCloneable` step every value crossing a boundary goes through), this file.
 * - Order: every request goes through one promise queue, so runs execute one at a time in call
 *   order and an output chunk always belongs to exactly one run id. The worker also handles
 *   requests one at a time, except `tool-result` answers (issue 4), which a waiting run needs.
 * - Output: the worker batches stdout/stderr (a flush every `stdoutFlushMs` or 64 KB, at the end
 *   of a run, and before `time.sleep`), so 100,000 printed lines arrive as a few hundred events;
 *   results keep the last `maxResultOutputChars`, the events carry everything.
 * - Values: the last expression converts with Pyodide's `toJs` (dicts to objects, `None` to
 *   `null`, frozensets to lists, dict keys JS cannot hold rewritten by Python), then
 *   `ensureStructuredCloneable` (see its rule table). Proxies are always released.
 * - Timeouts: the clock starts when the run is sent (after start-up and installs). On timeout the
 *   host writes 2 into the shared interrupt buffer and re-writes it every `resignalMs` (single
 *   signals are sometimes lost). If Python has not stopped after `interruptGraceMs` (a loop in C,
 *   a long sleep), the worker is terminated and replaced; the TimeoutError hint says whether
 *   globals survived. Without SharedArrayBuffer (no cross-origin isolation) a timeout replaces
 *   the worker at once.
 * - Restarts are fast: the first worker in a process/page takes a memory snapshot of the freshly
 *   started interpreter; later starts restore it (~1 s for a whole worker start instead of ~2.5 s).
 * - Faults: worker `error`/`exit` handlers are always attached; a worker that dies fails its
 *   pending requests (`WorkerCrashed`), a dead worker is restarted by the next call, a fatal
 *   Pyodide error restarts it at once. `execute` never throws; when the runtime is not
 *   initialized it initializes and retries once (the code had not run); a crash during a run is
 *   not retried. Memory bombs end as `MemoryError` (the 32-bit heap is capped) or `OverflowError`
 *   for sizes a 32-bit index cannot hold, with hints.
 * - Packages, offline first: a name resolves through `pyodide-lock.json` at `packageIndexURL`
 *   (falling back to the lock file of the installed package if the index is unreachable); wheel
 *   URLs, (Node) wheel paths and wheel bytes install directly; micropip only for names the index
 *   lacks and only if micropip itself loads. `loadPackage` resolving `[]` is reported as the error
 *   it logged.
 * - Workspace sync copies files into `/workspace` ('in', with their mtimes) and back ('out': new
 *   or changed files by mtime); deletions in Python are reported, not applied; `maxSyncBytes`
 *   bounds each direction (files beyond it are listed as skipped).
 */
import type { ArmatureEvents } from '../../src/kernel/events.ts';
import type { PythonStatus } from '../../src/kernel/events.ts';
import {
  DEFAULT_PACKAGE_INDEX,
  ToolCallMessageSchema,
  WorkerMessageSchema,
  parseMessage,
  type ExecuteValue,
  type InitResult,
  type PackageInfo,
  type PythonErrorInfo,
  type ReadChangedResult,
  type ResponseMessage,
  type Transport,
} from './protocol.ts';
import { MORE_PARTS, TOOL_STATUS } from './python-prelude.ts';
import { defaultIndexURL, inNode, spawnWorker, type WorkerHandle } from './worker-handle.ts';
import { toAnswer } from '../../src/bridge/marshal.ts';
import { createOutputRing, OUTPUT_KIND, OutputRingReader } from '../../src/bridge/output-ring.ts';
import { RequestPoller } from '../../src/bridge/request-poller.ts';
import { createSyncChannelBuffers, SyncChannelHost, type SlotRequest, type SyncChannelBuffers } from '../../src/bridge/sync-channel.ts';
import { parseToolJson } from '../../src/bridge/tool-request.ts';

export { DEFAULT_PACKAGE_INDEX, PYODIDE_VERSION } from './protocol.ts';

/** The subset of the Workspace API the runtime needs for `syncWorkspace`. */
export interface WorkspaceLike {
  list(): { path: string; size: number; mtime: number }[];
  read(path: string): Uint8Array;
  write(path: string, data: Uint8Array): Promise<unknown>;
}

/** What the runtime reports to and needs from its host (the upgrade wires it to the bus). */
export interface RuntimeHost {
  emit<K extends keyof ArmatureEvents>(type: K, payload: ArmatureEvents[K]): void;
  workspace?: WorkspaceLike;
}

/** A tool call made by Python through `call_tool`, as the runtime hands it to the host. */
export type ToolCallHandler = (
  name: string,
  args: unknown,
  instance?: string,
) => Promise<{ ok: true; value: unknown } | { ok: false; error: { code: string; message: string }; hint?: string }>;

/** One answered `call_tool`, as the bridge saw it. */
export interface BridgeCall {
  name: string;
  /** Bytes of the arguments' JSON as Python sent it. */
  argBytes: number;
  /** Bytes of the answer as it crossed to Python (its marshal document). */
  resultBytes: number;
  /** From the request reaching the host to the answer being encoded, in ms. */
  durationMs: number;
  ok: boolean;
}

/** Options of {@link createPyodideRuntime}. */
export interface PyodideRuntimeOptions {
  /** Worker script URL. Default: `./worker.ts` beside this file (bundles pass their own). */
  workerUrl?: string | URL;
  /**
   * Where Pyodide's own files are (`pyodide.asm.wasm`, `python_stdlib.zip`, `pyodide-lock.json`),
   * with a trailing slash. Default: in Node the folder of the installed `pyodide` package; in a
   * browser `/node_modules/pyodide/` on the page's origin.
   */
  indexURL?: string;
  /** Base URL holding the pinned version's `pyodide-lock.json` and wheels. Default: {@link DEFAULT_PACKAGE_INDEX}. */
  packageIndexURL?: string;
  /** Timeout of a run in ms when the call sets none. Default: 30000. */
  defaultTimeoutMs?: number;
  /**
   * How long Python gets to stop after the first interrupt before the worker is replaced, in ms.
   * Pure-Python code stops within milliseconds (p99 ~7 ms measured), so this only delays recovery
   * from loops inside C and long sleeps; recovery takes this plus one start-up (~2.5 s). Default: 1000.
   */
  interruptGraceMs?: number;
  /** Interval between repeated interrupt signals, in ms. Default: 100. */
  resignalMs?: number;
  /** Most bytes one `syncWorkspace` moves in either direction. Default: 50 MiB. */
  maxSyncBytes?: number;
  /** How often the worker flushes stdout/stderr while a run prints, in ms. Default: 16. */
  stdoutFlushMs?: number;
  /** Most characters of stdout and of stderr kept in a result (the stream events carry everything). Default: 1 MiB. */
  maxResultOutputChars?: number;
  /** How `call_tool` reaches the host. Default: `auto` (shared memory, else JSPI, else async only). */
  transport?: Transport | 'auto';
  /** Runs tools for `call_tool`. Default: none (calls fail with NO_TOOLS). */
  onToolCall?: ToolCallHandler;
  /** Python modules to install before user code (generated tool modules). Default: none. */
  modules?: () => { path: string; source: string }[];
  /**
   * Start workers from a memory snapshot of a freshly started interpreter: the first worker in the
   * process (or page) takes one (20 MB, kept in memory), and every later start or restart restores
   * it in ~0.2 s instead of starting Python in ~2.5 s. Python state after a restart is the same
   * either way. Uses Pyodide's private snapshot API of the pinned version; if a snapshot fails to
   * restore, workers start normally. Default: true.
   */
  memorySnapshot?: boolean;
  /** Most time `init()` may take, in ms. Default: 120000. */
  initTimeoutMs?: number;
  /**
   * Start a replacement worker as soon as a run times out, so that if Python ignores the interrupt
   * the restart is already under way when the grace period ends (it is discarded otherwise).
   * It pays off with spare cores; on two cores the stuck worker and the new one compete, and
   * `npm run bench` measured no gain, so it is off by default. Default: false.
   */
  prestartOnTimeout?: boolean;
  /**
   * How long the host keeps looking at the shared request slot after answering a `call_tool`,
   * in ms (shared-memory transport). Calls in a loop then reach the host without waking its
   * thread, several times faster on virtual machines; the price is a busy event loop for at most
   * this long after each call. 0 turns it off. Default: 2.
   */
  bridgePollMs?: number;
}

/** Options of one run. */
export interface ExecuteOptions {
  /** Default: the runtime's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Id that tags this run's output events. Default: generated. */
  runId?: string;
}

/** Outcome of a run: never thrown. */
export type ExecuteResult =
  | { ok: true; value: unknown; stdout: string; stderr: string; executionTime: number; runId: string }
  | { ok: false; error: PythonErrorInfo; hint?: string; stdout: string; stderr: string; executionTime: number; runId: string };

/** Snapshot of the runtime for widgets and tools. */
export interface RuntimeState {
  status: PythonStatus;
  pythonVersion?: string;
  pyodideVersion?: string;
  transport?: Transport;
  packages: PackageInfo[];
  executions: number;
  /** Bytes of the WebAssembly heap, when measurable. */
  memoryBytes?: number;
  lastError?: PythonErrorInfo;
  /** Times the worker was replaced (timeouts Python ignored, crashes, `restart()`). */
  restarts: number;
  /** Whether the current worker was restored from a memory snapshot (see `memorySnapshot`). */
  fromSnapshot?: boolean;
}

/** Counts and bytes moved by {@link PyodideRuntimeApi.syncWorkspace}. */
export interface SyncReport {
  direction: 'in' | 'out' | 'both';
  in?: { count: number; bytes: number; skipped: string[] };
  out?: { count: number; bytes: number; deleted: string[]; skipped: string[] };
}

/** The PyodideRuntime API (the upgrade's contract). */
export interface PyodideRuntimeApi {
  init(): Promise<void>;
  isReady(): boolean;
  getState(): RuntimeState;
  execute(code: string, options?: ExecuteOptions): Promise<ExecuteResult>;
  installPackage(spec: string | { fileName: string; bytes: Uint8Array }): Promise<{ ok: true; installed: string[] } | { ok: false; error: PythonErrorInfo; hint?: string }>;
  listPackages(): Promise<PackageInfo[]>;
  syncWorkspace(direction: 'in' | 'out' | 'both'): Promise<SyncReport>;
  interrupt(): void;
  restart(): Promise<void>;
  reset(): Promise<void>;
  dispose(): Promise<void>;
  /**
   * Sets who runs tools for `call_tool` (the PythonTool upgrade), and optionally who hears about
   * each answered call (after the answer is on its way, so it costs the caller nothing).
   */
  setToolCallHandler(handler: ToolCallHandler | undefined, observe?: (call: BridgeCall) => void): void;
  /**
   * Installs Python source files under the module path (e.g. `tools/workspace.py`), now if the
   * runtime is running and again after every restart.
   */
  setPythonModules(files: { path: string; source: string }[]): Promise<void>;
}

interface Pending {
  resolve(msg: ResponseMessage): void;
}

interface Live {
  worker: WorkerHandle;
  interrupt?: Int32Array;
  bridge?: { buffers: SyncChannelBuffers; host: SyncChannelHost; poller: RequestPoller };
  pending: Map<string, Pending>;
  /** stdout/stderr of runs in flight, by request id. */
  outputs: Map<string, { stdout: string[]; stderr: string[]; chars: [number, number] }>;
  /** The shared output ring and the state of draining it (shared memory only). */
  output?: {
    reader: OutputRingReader;
    decoders: { stdout: TextDecoder; stderr: TextDecoder };
    /** Whom the output belongs to, as the worker's marks say. */
    run: { id: string; runId: string };
    last: number;
    timer?: ReturnType<typeof setTimeout>;
    /** Where a drain gathers the bytes it decodes. */
    scratch: Uint8Array;
  };
  ready: Promise<InitResult>;
  dead: boolean;
}

/**
 * Memory snapshots of a freshly started interpreter, by `indexURL`, shared by every runtime in
 * this process or page: the first worker makes one, later starts and restarts restore it.
 */
const snapshots = new Map<string, Uint8Array | 'failed'>();

/**
 * A `call_tool` from Python being answered. A tool handler that asks the same runtime for work
 * (a run, an install, ...) would wait behind the run that is waiting for the handler: a deadlock.
 * The scope travels with the handler — through every await in Node (AsyncLocalStorage), through
 * its synchronous start in browsers (no async context there yet) — so the runtime can refuse
 * such work at once with a CycleError naming the cycle.
 */
interface ToolCallScope {
  runtime: object;
  tool: string;
  /** Set when the handler has answered: work it left behind (timers) is not part of the cycle. */
  done: boolean;
}

const asyncHooks = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:async_hooks') as
  | typeof import('node:async_hooks')
  | undefined;
const toolScopes = asyncHooks ? new asyncHooks.AsyncLocalStorage<ToolCallScope>() : undefined;
let syncToolScope: ToolCallScope | undefined;

/** Lists longer than `minItems` are answered in parts: `firstItems`, then about `bytes` each. */
const PARTS = { minItems: 2000, firstItems: 500, bytes: 1 << 20 };

let seq = 0;
const nextId = (prefix: string) => `${prefix}-${++seq}`;

function chooseTransport(requested: Transport | 'auto'): Transport {
  if (requested !== 'auto') return requested;
  const isolated = inNode() || (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  if (typeof SharedArrayBuffer === 'function' && isolated) return 'shared-memory';
  if (typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === 'function') return 'jspi';
  return 'async';
}

/** Adds a hint for common failures. */
export function hintFor(error: PythonErrorInfo): string | undefined {
  switch (error.type) {
    case 'SyntaxError':
    case 'IndentationError':
    case 'TabError':
      return `${error.type} at line ${error.line ?? '?'}, column ${error.column ?? '?'}: ${error.message}. Fix the code there and run it again.`;
    case 'ModuleNotFoundError': {
      const mod = /No module named '([^']+)'/.exec(error.message)?.[1]?.split('.')[0];
      return mod
        ? `The module "${mod}" is not installed: install it with install_python_package {"package": "${mod}"} (or pass install_packages to execute_python), then run again.`
        : 'Install the missing module with install_python_package, then run again.';
    }
    case 'MemoryError':
      return 'Python ran out of memory: process the data in smaller pieces, or free large objects (del) first.';
    case 'ToolError':
      return 'A tool called from Python failed: see the message, fix the arguments and retry.';
    case 'RuntimeNotReady':
      return 'The Python runtime is starting or restarting: retry in a moment.';
    case 'WorkerCrashed':
      return 'The Python worker crashed during the run (for example out of memory); it was restarted: globals, imports and installed packages were lost.';
    case 'OverflowError':
      return /index-sized integer|too large|too many/.test(error.message)
        ? 'Python here is 32-bit WebAssembly: one object holds at most 2**31-1 items and memory is capped at a few GB. Process the data in smaller pieces.'
        : undefined;
    case 'CycleError':
      return 'A tool called from Python cannot use the Python runtime that is running that code. Call the tool outside Python, or do its work in the Python code itself.';
    case 'KeyboardInterrupt':
      return 'The run was interrupted.';
  }
  return undefined;
}

/**
 * Creates the runtime. Nothing starts until `init()` (or the first call that needs Python).
 */
export function createPyodideRuntime(options: PyodideRuntimeOptions, host: RuntimeHost): PyodideRuntimeApi {
  /** Identifies this runtime in tool-call scopes. */
  const self = {};
  /** The CycleError for `method` when called from a tool that Python code of this runtime is waiting on. */
  const cycle = (method: string): PythonErrorInfo | undefined => {
    const scope = toolScopes?.getStore() ?? syncToolScope;
    if (!scope || scope.runtime !== self || scope.done) return undefined;
    return {
      type: 'CycleError',
      message: `call_tool("${scope.tool}") asked the Python runtime for ${method}, but that runtime is busy running the code waiting for "${scope.tool}": python -> call_tool("${scope.tool}") -> PyodideRuntime.${method} -> (waits for the same run). Refused instead of deadlocking.`,
      traceback: '',
    };
  };
  const cycleFailure = (method: string): Error | undefined => {
    const info = cycle(method);
    return info ? Object.assign(new Error(`[${method}] ${info.message}`), { info }) : undefined;
  };
  const o = {
    defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000,
    interruptGraceMs: options.interruptGraceMs ?? 1000,
    resignalMs: options.resignalMs ?? 100,
    maxSyncBytes: options.maxSyncBytes ?? 50 * 1024 * 1024,
    stdoutFlushMs: options.stdoutFlushMs ?? 16,
    maxChars: options.maxResultOutputChars ?? 1024 * 1024,
    packageIndexURL: options.packageIndexURL ?? DEFAULT_PACKAGE_INDEX,
    initTimeoutMs: options.initTimeoutMs ?? 120_000,
    prestart: options.prestartOnTimeout ?? false,
    bridgePollMs: options.bridgePollMs ?? 2,
    memorySnapshot: options.memorySnapshot ?? true,
  };
  let status: PythonStatus = 'idle';
  let live: Live | undefined;
  let info: InitResult | undefined;
  let packages: PackageInfo[] = [];
  let executions = 0;
  let restarts = 0;
  let memoryBytes: number | undefined;
  let lastError: PythonErrorInfo | undefined;
  let disposed = false;
  /** Files as last synced: workspace path -> mtime in Python's file system. */
  let synced: Record<string, number> = {};
  let queue: Promise<unknown> = Promise.resolve();
  let activeRun: { signal(): void } | undefined;
  let starting: Promise<Live> | undefined;
  let restartPending = false;
  let toolCallHandler = options.onToolCall;
  let observeToolCall: ((call: BridgeCall) => void) | undefined;
  let pythonModules: { path: string; source: string }[] = options.modules?.() ?? [];

  const setStatus = (next: PythonStatus, message?: string) => {
    if (status === next) return;
    status = next;
    host.emit('python:state', message ? { status: next, message } : { status: next });
  };

  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = queue.then(op, op);
    queue = next.catch(() => undefined);
    return next;
  };

  function request<T = unknown>(l: Live, msg: { type: string; id?: string; [k: string]: unknown }, transfer?: Transferable[]): Promise<ResponseMessage & { value?: T }> {
    const id = msg.id ?? nextId(msg.type);
    return new Promise((resolve) => {
      if (l.dead) return resolve({ type: 'response', id, ok: false, error: { type: 'RuntimeNotReady', message: 'the Python worker has stopped', traceback: '' } });
      l.pending.set(id, { resolve: resolve as Pending['resolve'] });
      l.worker.post({ ...msg, id }, transfer);
    });
  }

  async function answerToolCall(l: Live, msg: { id: string; callId: number; name: string; args: unknown; instance?: string; argBytes?: number }, t: Transport) {
    if (l.dead) return;
    const t0 = now();
    let status: number = TOOL_STATUS.ok;
    let payload: Uint8Array;
    const scope: ToolCallScope = { runtime: self, tool: msg.name, done: false };
    try {
      const handler = toolCallHandler;
      const call = () => handler!(msg.name, msg.args, msg.instance);
      let pending: ReturnType<ToolCallHandler> | undefined;
      if (!handler) pending = undefined;
      else if (toolScopes) pending = toolScopes.run(scope, call);
      else {
        syncToolScope = scope;
        try {
          pending = call();
        } finally {
          syncToolScope = undefined;
        }
      }
      const r = pending
        ? await pending.finally(() => (scope.done = true))
        : { ok: false as const, error: { code: 'NO_TOOLS', message: 'no tools are connected to this Python runtime' } };
      if (r.ok && t === 'shared-memory' && l.bridge && Array.isArray(r.value) && r.value.length > PARTS.minItems) {
        return await answerInParts(l, msg, r.value, t0);
      }
      if (r.ok) {
        try {
          // Over shared memory the value is encoded straight into the free answer region, and
          // respond() below (same task) publishes it without copying.
          payload = toAnswer(status, r.value, t === 'shared-memory' && !l.dead ? l.bridge?.host.answerTarget() : undefined);
        } catch (e) {
          status = TOOL_STATUS.bridgeError;
          payload = unsendable(msg.name, e);
        }
      } else {
        status = TOOL_STATUS.toolError;
        payload = toAnswer(status, { code: r.error.code, message: r.error.message, hint: r.hint });
      }
    } catch (e) {
      status = TOOL_STATUS.bridgeError;
      payload = toAnswer(status, { code: 'BRIDGE_FAILED', message: String((e as Error).message ?? e) });
    }
    if (l.dead) return;
    const call: BridgeCall = { name: msg.name, argBytes: msg.argBytes ?? 0, resultBytes: payload.byteLength, durationMs: now() - t0, ok: status === TOOL_STATUS.ok };
    if (t === 'shared-memory' && l.bridge) {
      // Python usually calls again right away: watch the request slot instead of waiting to be
      // woken. Before answering, so the worker already sees the host watching when it asks again.
      l.bridge.poller.watch();
      const written = l.bridge.host.respond(msg.callId, payload, status).catch(() => undefined);
      observeToolCall?.(call);
      await written;
    } else {
      l.worker.post({ type: 'tool-result', id: msg.id, callId: msg.callId, status, payload }, [payload.buffer as ArrayBuffer]);
      observeToolCall?.(call);
    }
  }

  /**
   * Sends a long list in parts (about 1 MiB each after a small first one) so that encoding and
   * decoding overlap: the host encodes part k+1 while Python decodes part k (the worker copies
   * each part out and frees the region at once). Stops if the worker has moved on to another call
   * (an interrupt). Never throws.
   */
  async function answerInParts(l: Live, msg: { name: string; callId: number; argBytes?: number }, list: unknown[], t0: number): Promise<void> {
    const bridge = l.bridge!;
    let start = 0;
    let count = PARTS.firstItems;
    let bytes = 0;
    let ok = true;
    try {
      while (!l.dead) {
        const end = Math.min(list.length, start + count);
        let more = end < list.length;
        let status: number = TOOL_STATUS.ok;
        let payload: Uint8Array;
        try {
          payload = toAnswer(status, list.slice(start, end), bridge.host.answerTarget(), more);
        } catch (e) {
          status = TOOL_STATUS.bridgeError;
          more = false;
          ok = false;
          payload = unsendable(msg.name, e, ` (in items ${start}..${end - 1})`);
        }
        bytes += payload.byteLength;
        if (!more) bridge.poller.watch();
        await bridge.host.respond(msg.callId, payload, more ? status | MORE_PARTS : status);
        if (!more) break;
        // Encode the next part once this one is copied out, while Python decodes it.
        await bridge.host.whenTaken();
        if (!bridge.host.clientWaitsFor(msg.callId)) return;
        count = Math.max(100, Math.round(PARTS.bytes / (payload.byteLength / (end - start))));
        start = end;
      }
    } catch {
      // The worker stopped taking parts (it was interrupted, or died): nothing more to send.
      return;
    }
    if (!l.dead) observeToolCall?.({ name: msg.name, argBytes: msg.argBytes ?? 0, resultBytes: bytes, durationMs: now() - t0, ok });
  }

  /**
   * Marks a worker as gone: its pending requests end with `error` (if given), its bridge stops polling and
   * its output timer stops. Terminating the worker is the caller's.
   */
  function retire(l: Live, error?: PythonErrorInfo, fatal = false): void {
    l.dead = true;
    l.bridge?.poller.dispose();
    clearTimeout(l.output?.timer);
    if (!error) return;
    for (const [id, p] of l.pending) p.resolve(fatal ? { type: 'response', id, ok: false, error, fatal } : { type: 'response', id, ok: false, error });
    l.pending.clear();
  }

  /** `UNSENDABLE_RESULT` for a tool value marshal refused (`where`: which items, for a list in parts). */
  function unsendable(name: string, e: unknown, where = ''): Uint8Array {
    return toAnswer(TOOL_STATUS.bridgeError, { code: 'UNSENDABLE_RESULT', message: `${name} returned a value Python cannot receive: ${(e as Error).message}${where}` });
  }

  /** Records output of request `id` and emits it as `python:stdout` / `python:stderr`. */
  function deliver(l: Live, id: string, runId: string, stream: 'stdout' | 'stderr', chunk: string): void {
    const out = l.outputs.get(id);
    if (out) {
      const i = stream === 'stdout' ? 0 : 1;
      const list = i === 0 ? out.stdout : out.stderr;
      list.push(chunk);
      out.chars[i] += chunk.length;
      // Keep only the tail in memory; the events carry everything.
      while (out.chars[i] - list[0]!.length > o.maxChars && list.length > 1) out.chars[i] -= list.shift()!.length;
    }
    host.emit(stream === 'stdout' ? 'python:stdout' : 'python:stderr', { runId, chunk });
  }

  /**
   * Moves what waits in the output ring to `deliver`, one event per run and stream per drain
   * (consecutive records are joined, so a flood of prints is a few events, not one per line).
   * Unless `all`, a drain takes about 256 KB and leaves the rest to a drain in the next task, so
   * the page stays responsive while a flood is rendered.
   */
  function drainOutput(l: Live, all = false): void {
    const d = l.output;
    if (!d) return;
    clearTimeout(d.timer);
    d.timer = undefined;
    d.last = now();
    const parts: { run: { id: string; runId: string }; stream: 'stdout' | 'stderr'; start: number; end: number }[] = [];
    let used = 0;
    const more = d.reader.drain((kind, payload) => {
      if (kind === OUTPUT_KIND.mark) {
        d.run = JSON.parse(new TextDecoder().decode(payload.slice())) as { id: string; runId: string };
        return;
      }
      const stream = kind === OUTPUT_KIND.stdout ? 'stdout' : 'stderr';
      // Payloads are views of shared memory, valid during the call only: copied into one buffer
      // (a drain holds at most the ring's size), so each part is decoded once.
      if (used + payload.length > d.scratch.length) {
        const bigger = new Uint8Array(Math.max(d.scratch.length * 2, used + payload.length));
        bigger.set(d.scratch.subarray(0, used));
        d.scratch = bigger;
      }
      d.scratch.set(payload, used);
      const tail = parts[parts.length - 1];
      if (tail && tail.run === d.run && tail.stream === stream) tail.end = used + payload.length;
      else parts.push({ run: d.run, stream, start: used, end: used + payload.length });
      used += payload.length;
    }, all ? Infinity : 256 * 1024);
    if (more) d.timer = setTimeout(() => !l.dead && drainOutput(l), 0);
    for (const p of parts) {
      const text = d.decoders[p.stream].decode(d.scratch.subarray(p.start, p.end), { stream: true });
      if (text) deliver(l, p.run.id, p.run.runId, p.stream, text);
    }
  }

  /** Drains now, or at most every `stdoutFlushMs` (a timer: it fires while Python computes). */
  function scheduleDrain(l: Live, urgent: boolean): void {
    const d = l.output;
    if (!d || d.timer) {
      if (d && urgent) drainOutput(l);
      return;
    }
    const wait = d.last + o.stdoutFlushMs - now();
    if (urgent || wait <= 0) drainOutput(l);
    else d.timer = setTimeout(() => !l.dead && drainOutput(l), wait);
  }

  /** Answers a request taken from the shared slot (by the poller or after a `tool-call-ready`). */
  function answerSlotRequest(l: Live, request: SlotRequest): void {
    let parsed: ReturnType<typeof parseMessage<typeof ToolCallMessageSchema>>;
    try {
      parsed = parseMessage(ToolCallMessageSchema, parseToolJson(request.text));
    } catch (e) {
      parsed = { ok: false, error: `the request is not JSON: ${(e as Error).message}` };
    }
    if (!parsed.ok) {
      const payload = toAnswer(TOOL_STATUS.bridgeError, { code: 'BRIDGE_FAILED', message: `malformed call_tool request: ${parsed.error}` });
      void l.bridge?.host.respond(request.callId, payload, TOOL_STATUS.bridgeError).catch(() => undefined);
      return;
    }
    void answerToolCall(l, parsed.value, 'shared-memory');
  }

  async function start(): Promise<Live> {
    const transport = chooseTransport(options.transport ?? 'auto');
    const worker = await spawnWorker(options.workerUrl);
    const canShare = typeof SharedArrayBuffer === 'function' && (inNode() || (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true);
    const interruptBuffer = canShare ? new SharedArrayBuffer(4) : undefined;
    const buffers = transport === 'shared-memory' ? createSyncChannelBuffers() : undefined;
    const outputRing = canShare ? createOutputRing() : undefined;
    const l: Live = {
      worker,
      interrupt: interruptBuffer ? new Int32Array(interruptBuffer) : undefined,
      bridge: undefined,
      pending: new Map(),
      outputs: new Map(),
      ready: Promise.resolve(undefined as never),
      dead: false,
    };
    if (outputRing) {
      l.output = { reader: new OutputRingReader(outputRing), decoders: { stdout: new TextDecoder(), stderr: new TextDecoder() }, run: { id: 'init', runId: 'init' }, last: 0, scratch: new Uint8Array(64 * 1024) };
    }
    if (buffers) {
      const channel = new SyncChannelHost(buffers);
      l.bridge = { buffers, host: channel, poller: new RequestPoller(channel, (r) => answerSlotRequest(l, r), { windowMs: o.bridgePollMs }) };
    }
    const die = (why: string) => {
      if (l.dead) return;
      // What the worker printed before it died is still in the ring: show it.
      drainOutput(l, true);
      retire(l, { type: 'WorkerCrashed', message: why, traceback: '' }, true);
      // A browser worker keeps running after an uncaught error, in an unknown state: stop it
      // (in Node the thread has already ended; terminating again is harmless).
      void worker.terminate().catch(() => undefined);
      if (live === l && !disposed && status !== 'restarting') {
        lastError = { type: 'WorkerCrashed', message: why, traceback: '' };
        setStatus('error', why);
      }
    };
    worker.onError((e) => die(`the Python worker failed: ${e.message}`));
    worker.onExit((code) => die(`the Python worker exited (code ${code})`));
    worker.onMessage((raw) => {
      const parsed = parseMessage(WorkerMessageSchema, raw);
      if (!parsed.ok) {
        lastError = { type: 'ProtocolError', message: parsed.error, traceback: '' };
        // A malformed answer still ends the request it answers, instead of leaving it waiting.
        const id = (raw as { type?: unknown; id?: unknown } | null)?.type === 'response' ? String((raw as { id: unknown }).id) : undefined;
        const p = id === undefined ? undefined : l.pending.get(id);
        if (p) {
          l.pending.delete(id!);
          p.resolve({ type: 'response', id: id!, ok: false, error: lastError });
        }
        return;
      }
      const msg = parsed.value;
      switch (msg.type) {
        case 'progress':
          host.emit('python:progress', msg.message ? { stage: msg.stage, percent: msg.percent, message: msg.message } : { stage: msg.stage, percent: msg.percent });
          return;
        case 'stream':
          deliver(l, msg.id, msg.runId, msg.stream, msg.chunk);
          return;
        case 'output-ready':
          scheduleDrain(l, msg.full === true);
          return;
        case 'tool-call':
          void answerToolCall(l, msg, transport);
          return;
        case 'tool-call-ready': {
          // The poller may have taken it already; the slot hands each request out once.
          const request = l.bridge?.host.takeRequest();
          if (request) answerSlotRequest(l, request);
          return;
        }
        case 'response': {
          // Everything the request printed was written before its answer: take it first.
          drainOutput(l, true);
          const p = l.pending.get(msg.id);
          l.pending.delete(msg.id);
          p?.resolve(msg);
          return;
        }
      }
    });
    l.ready = (async () => {
      const indexURL = options.indexURL ?? (await defaultIndexURL());
      const modules = pythonModules;
      const timer = new Promise<ResponseMessage>((resolve) =>
        setTimeout(
          () => resolve({ type: 'response', id: 'init', ok: false, error: { type: 'TimeoutError', message: `Pyodide did not start within ${o.initTimeoutMs} ms`, traceback: '' } }),
          o.initTimeoutMs,
        ).unref?.(),
      );
      const cached = o.memorySnapshot ? snapshots.get(indexURL) : 'off';
      const snapshot = cached instanceof Uint8Array ? cached.slice() : undefined;
      const res = await Promise.race([
        request<InitResult>(
          l,
          {
            type: 'init',
            id: 'init',
            indexURL,
            packageIndexURL: o.packageIndexURL,
            interrupt: interruptBuffer,
            bridge: buffers,
            transport,
            stdoutFlushMs: o.stdoutFlushMs,
            output: outputRing,
            modules,
            snapshot,
            makeSnapshot: cached === undefined,
          },
          snapshot ? [snapshot.buffer] : undefined,
        ),
        timer,
      ]);
      if (!res.ok) throw Object.assign(new Error(res.error.message), { info: res.error });
      const { snapshot: made, ...result } = res.value as InitResult;
      if (made) snapshots.set(indexURL, made);
      // The snapshot did not restore: start normally from now on rather than fail again.
      else if (snapshot && !result.fromSnapshot) snapshots.set(indexURL, 'failed');
      return result;
    })();
    // Awaited by ensureLive; this keeps a worker that dies unobserved from raising unhandledRejection.
    l.ready.catch(() => undefined);
    return l;
  }

  /** Stops a worker that was started but not adopted. */
  function discard(prepared: Promise<Live> | undefined): void {
    void prepared?.then((l) => {
      retire(l);
      return l.worker.terminate();
    }).catch(() => undefined);
  }

  /**
   * Starts (or restarts) the worker once, however many callers ask at the same time.
   * `prepared` is a worker already being started (see `prestartOnTimeout`) to adopt instead.
   */
  function ensureLive(prepared?: Promise<Live>): Promise<Live> {
    if (disposed) {
      discard(prepared);
      return Promise.reject(Object.assign(new Error('the runtime is disposed'), { info: { type: 'RuntimeNotReady', message: 'the runtime is disposed', traceback: '' } }));
    }
    if (live && !live.dead) {
      discard(prepared);
      return live.ready.then(() => live!);
    }
    if (starting) discard(prepared);
    starting ??= (async () => {
      const wasRestart = restartPending || !!live;
      restartPending = false;
      setStatus(wasRestart ? 'restarting' : 'loading');
      const started = await (prepared ?? start());
      if (disposed) {
        // dispose() ran while the worker was being created: do not leave it running.
        retire(started);
        await started.worker.terminate().catch(() => undefined);
        throw Object.assign(new Error('the runtime is disposed'), { info: { type: 'RuntimeNotReady', message: 'the runtime is disposed', traceback: '' } });
      }
      live = started;
      try {
        info = await started.ready;
      } catch (e) {
        lastError = (e as { info?: PythonErrorInfo }).info ?? { type: 'RuntimeError', message: String(e), traceback: '' };
        setStatus('error', lastError.message);
        live = undefined;
        await started.worker.terminate().catch(() => undefined);
        throw e;
      }
      if (wasRestart) restarts++;
      synced = {};
      // A new interpreter has no installed distributions (a restart loses the installed ones), and
      // asking importlib.metadata costs ~0.3 s on a fresh worker: the list starts empty.
      packages = [];
      const mem = await request<{ wasmHeapBytes: number | null }>(started, { type: 'memory' });
      if (mem.ok) memoryBytes = (mem.value as { wasmHeapBytes: number | null }).wasmHeapBytes ?? undefined;
      setStatus('ready');
      return started;
    })().finally(() => {
      starting = undefined;
    });
    return starting;
  }

  async function listPackagesNow(l: Live): Promise<PackageInfo[]> {
    const r = await request<PackageInfo[]>(l, { type: 'list-packages' });
    return r.ok ? (r.value as PackageInfo[]) : packages;
  }

  async function replaceWorker(prepared?: Promise<Live>): Promise<void> {
    const old = live;
    setStatus('restarting');
    restartPending = true;
    live = undefined;
    if (old) {
      retire(old, { type: 'WorkerRestarted', message: 'the worker was restarted', traceback: '' }, true);
      await old.worker.terminate().catch(() => undefined);
    }
    await ensureLive(prepared);
  }

  function errorResult(runId: string, error: PythonErrorInfo, t0: number, out?: { stdout: string[]; stderr: string[] }, hint?: string): ExecuteResult {
    const h = hint ?? hintFor(error);
    const base = { ok: false as const, error, stdout: join(out?.stdout, o.maxChars), stderr: join(out?.stderr, o.maxChars), executionTime: now() - t0, runId };
    return h ? { ...base, hint: h } : base;
  }

  /** Runs `code` on a started worker; emits `python:started` and `python:finished`. */
  async function runOn(l: Live, code: string, runId: string, timeoutMs: number): Promise<ExecuteResult> {
    const id = nextId('run');
    const out = { stdout: [] as string[], stderr: [] as string[], chars: [0, 0] as [number, number] };
    l.outputs.set(id, out);
    setStatus('busy');
    host.emit('python:started', { runId });
    const t0 = now();
    let timedOut = false;
    let restarted = false;
    let signalTimer: ReturnType<typeof setInterval> | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const stopSignals = () => {
      clearInterval(signalTimer);
      clearTimeout(graceTimer);
      signalTimer = undefined;
    };
    let spare: Promise<Live> | undefined;
    const signal = () => {
      if (signalTimer) return;
      const send = () => l.interrupt && Atomics.store(l.interrupt, 0, 2);
      send();
      signalTimer = setInterval(send, o.resignalMs);
      // Most interrupts work within milliseconds; when one does not, the replacement is half-ready.
      if (o.prestart && l.interrupt) {
        spare = start();
        spare.then((s) => s.ready).catch(() => undefined);
      }
      graceTimer = setTimeout(() => {
        // Python did not stop (a loop inside C, a long sleep): replace the worker.
        restarted = true;
        stopSignals();
        const next = spare;
        spare = undefined;
        void replaceWorker(next).catch(() => undefined);
      }, l.interrupt ? o.interruptGraceMs : 0);
    };
    activeRun = { signal };
    const timeout = setTimeout(() => {
      timedOut = true;
      signal();
    }, timeoutMs);
    const res = await request<ExecuteValue>(l, { type: 'execute', id, runId, code });
    clearTimeout(timeout);
    stopSignals();
    // The interrupt worked: the prepared replacement is not needed.
    discard(spare);
    spare = undefined;
    activeRun = undefined;
    l.outputs.delete(id);
    if (l.interrupt) Atomics.store(l.interrupt, 0, 0);
    executions++;
    let result: ExecuteResult;
    if (res.ok) {
      memoryBytes = (res.value as ExecuteValue).memoryBytes ?? memoryBytes;
      result = { ok: true, value: (res.value as ExecuteValue).value, stdout: join(out.stdout, o.maxChars), stderr: join(out.stderr, o.maxChars), executionTime: now() - t0, runId };
    } else if (timedOut) {
      const error: PythonErrorInfo = {
        type: 'TimeoutError',
        message: `the run did not finish within ${timeoutMs} ms`,
        traceback: res.error.type === 'KeyboardInterrupt' ? res.error.traceback : '',
      };
      const hint = restarted
        ? `Python did not stop when interrupted (a loop inside C code or a long sleep), so the runtime was restarted: globals, imports and installed packages were lost. Make the work smaller or raise timeout_ms.`
        : `The run was interrupted after ${timeoutMs} ms; globals survived. Make the work smaller or raise timeout_ms.`;
      result = errorResult(runId, error, t0, out, hint);
    } else if (restarted || res.error.type === 'WorkerRestarted') {
      result = errorResult(runId, { type: 'KeyboardInterrupt', message: 'interrupted; Python did not stop, so the runtime was restarted', traceback: '' }, t0, out, 'Globals, imports and installed packages were lost in the restart.');
    } else {
      const fatalHint =
        res.fatal && res.error.type !== 'WorkerCrashed' ? `${hintFor(res.error) ?? ''} The Python runtime failed fatally and was restarted: globals were lost.`.trim() : undefined;
      result = errorResult(runId, res.error, t0, out, fatalHint);
      if (res.fatal) void replaceWorker().catch(() => undefined);
    }
    if (!result.ok) lastError = result.error;
    host.emit('python:finished', result.ok ? { runId, ok: true, executionTime: result.executionTime } : { runId, ok: false, executionTime: result.executionTime, errorType: result.error.type });
    if (live === l && !l.dead) setStatus('ready');
    return result;
  }

  const api: PyodideRuntimeApi = {
    async init() {
      // From a tool Python is waiting on, the runtime is running: it is initialized.
      if (cycle('init')) return;
      await serial(async () => {
        await ensureLive();
      });
    },

    isReady: () => status === 'ready' || status === 'busy',

    getState: () => ({
      status,
      pythonVersion: info?.pythonVersion,
      pyodideVersion: info?.pyodideVersion,
      transport: info?.transport,
      packages,
      executions,
      memoryBytes,
      lastError,
      restarts,
      fromSnapshot: info?.fromSnapshot,
    }),

    execute(code, opts = {}) {
      const runId = opts.runId ?? nextId('py');
      const timeoutMs = opts.timeoutMs ?? o.defaultTimeoutMs;
      const refused = cycle('execute');
      if (refused) return Promise.resolve(errorResult(runId, refused, now()));
      return serial(async () => {
        const t0 = now();
        try {
          if (typeof code !== 'string') {
            return errorResult(runId, { type: 'TypeError', message: `code must be a string, got ${typeof code}`, traceback: '' }, t0);
          }
          // When the runtime is not initialized (it could not start, or died between runs) the code
          // has not run: initialize and retry once. A crash during a run is not retried, since
          // running the same code again would likely crash again.
          let notReady: PythonErrorInfo | undefined;
          for (let attempt = 0; attempt < 2 && !disposed; attempt++) {
            try {
              const l = await ensureLive();
              if (!l.dead) return await runOn(l, code, runId, timeoutMs);
              notReady = { type: 'RuntimeNotReady', message: 'the Python worker stopped before the run could start', traceback: '' };
            } catch (e) {
              notReady = (e as { info?: PythonErrorInfo }).info ?? { type: 'RuntimeNotReady', message: String((e as Error).message ?? e), traceback: '' };
            }
          }
          notReady ??= { type: 'RuntimeNotReady', message: 'the runtime is disposed', traceback: '' };
          const result = errorResult(runId, { ...notReady, type: 'RuntimeNotReady' }, t0);
          lastError = result.ok ? lastError : result.error;
          host.emit('python:started', { runId });
          host.emit('python:finished', { runId, ok: false, executionTime: result.executionTime, errorType: 'RuntimeNotReady' });
          return result;
        } catch (e) {
          return errorResult(runId, { type: 'RuntimeError', message: String((e as Error)?.message ?? e), traceback: '' }, t0);
        }
      });
    },

    installPackage(spec) {
      const refused = cycle('installPackage');
      if (refused) return Promise.resolve({ ok: false as const, error: refused, hint: hintFor(refused) });
      return serial(async () => {
        try {
          const l = await ensureLive();
          const msg = typeof spec === 'string' ? { type: 'install', spec: { source: spec } } : { type: 'install', spec: { fileName: spec.fileName, bytes: spec.bytes } };
          const r = await request<{ installed: string[] }>(l, msg);
          if (!r.ok) {
            const h = hintFor(r.error);
            return h ? { ok: false as const, error: r.error, hint: h } : { ok: false as const, error: r.error, hint: 'Check the package name, or install a wheel by URL or path.' };
          }
          const before = new Set(packages.map((p) => p.name.toLowerCase()));
          packages = await listPackagesNow(l);
          for (const p of packages) if (!before.has(p.name.toLowerCase())) host.emit('python:package-installed', { name: p.name, version: p.version });
          return { ok: true as const, installed: (r.value as { installed: string[] }).installed };
        } catch (e) {
          return { ok: false as const, error: (e as { info?: PythonErrorInfo }).info ?? { type: 'RuntimeNotReady', message: String(e), traceback: '' } };
        }
      });
    },

    listPackages() {
      // The list as of the last install: asking the busy worker would wait for the run.
      if (cycle('listPackages')) return Promise.resolve(packages);
      return serial(async () => {
        const l = await ensureLive();
        packages = await listPackagesNow(l);
        return packages;
      });
    },

    syncWorkspace(direction) {
      const refused = cycleFailure('syncWorkspace');
      if (refused) return Promise.reject(refused);
      return serial(async () => {
        const ws = host.workspace;
        if (!ws) throw new Error('[syncWorkspace] no workspace is connected to this runtime (load the Workspace upgrade)');
        const l = await ensureLive();
        const report: SyncReport = { direction };
        if (direction === 'in' || direction === 'both') {
          const files: { path: string; data: Uint8Array; mtime: number }[] = [];
          const skipped: string[] = [];
          let bytes = 0;
          for (const f of ws.list()) {
            if (bytes + f.size > o.maxSyncBytes) {
              skipped.push(f.path);
              continue;
            }
            bytes += f.size;
            files.push({ path: f.path, data: ws.read(f.path).slice(), mtime: f.mtime });
          }
          const r = await request(l, { type: 'write-files', root: '/workspace', files }, files.map((f) => f.data.buffer as ArrayBuffer));
          if (!r.ok) throw new Error(`[syncWorkspace] writing into Python failed: ${r.error.message}`);
          for (const f of files) synced[f.path] = f.mtime;
          report.in = { count: files.length, bytes, skipped };
        }
        if (direction === 'out' || direction === 'both') {
          const r = await request<ReadChangedResult>(l, { type: 'read-changed', root: '/workspace', known: synced, maxBytes: o.maxSyncBytes });
          if (!r.ok) throw new Error(`[syncWorkspace] reading from Python failed: ${r.error.message}`);
          const changed = r.value as ReadChangedResult;
          let bytes = 0;
          for (const f of changed.files) {
            await ws.write(f.path, f.data);
            synced[f.path] = f.mtime ?? Date.now();
            bytes += f.data.byteLength;
          }
          report.out = { count: changed.files.length, bytes, deleted: changed.deleted, skipped: changed.skipped };
        }
        return report;
      });
    },

    interrupt() {
      activeRun?.signal();
    },

    setToolCallHandler(handler, observe) {
      toolCallHandler = handler;
      observeToolCall = observe;
    },

    setPythonModules(files) {
      const refused = cycleFailure('setPythonModules');
      if (refused) return Promise.reject(refused);
      pythonModules = files;
      return serial(async () => {
        if (!live || live.dead) return; // passed in the init message of the next start
        const r = await request(live, {
          type: 'write-files',
          root: '/armature/lib',
          files: files.map((f) => ({ path: f.path, data: new TextEncoder().encode(f.source) })),
        });
        if (!r.ok) throw new Error(`[setPythonModules] ${r.error.message}`);
      });
    },

    restart() {
      const refused = cycleFailure('restart');
      if (refused) return Promise.reject(refused);
      return serial(() => replaceWorker());
    },

    reset() {
      const refused = cycleFailure('reset');
      if (refused) return Promise.reject(refused);
      return serial(async () => {
        const l = await ensureLive();
        const r = await request(l, { type: 'reset' });
        if (!r.ok) throw new Error(`[reset] ${r.error.message}`);
      });
    },

    async dispose() {
      disposed = true;
      const l = live;
      live = undefined;
      if (l) {
        retire(l, { type: 'RuntimeNotReady', message: 'the runtime was disposed', traceback: '' });
        await l.worker.terminate().catch(() => undefined);
      }
      setStatus('idle');
    },
  };
  return api;
}

function join(chunks: string[] | undefined, max: number): string {
  if (!chunks?.length) return '';
  const all = chunks.join('');
  return all.length <= max ? all : `[… ${all.length - max} earlier characters omitted; the python:stdout/stderr events carry everything]\n${all.slice(-max)}`;
}

function now(): number {
  return performance.now();
}

