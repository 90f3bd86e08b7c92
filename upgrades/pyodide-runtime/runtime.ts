/**
 * PyodideRuntime, host side: Python (Pyodide 0.29.5) in a dedicated worker that always comes back.
 * This file is the API facade: it queues operations and turns them into worker requests.
 *
 * Design notes (for the blueprint):
 * - Files, one job each: `protocol.ts` (zod schemas of every message, both directions; both sides
 *   validate what they receive; errors cross as `{ type, message, traceback }`), `worker.ts` (the
 *   worker: Node `worker_threads` or a module Web Worker, no DOM), `worker-handle.ts` (the one
 *   adapter over the two worker kinds), `python-prelude.ts` (Python modules installed in every
 *   interpreter: the runner and the `call_tool` bridge), `clone-safety.ts` (the one
 *   `ensureStructuredCloneable` step every value crossing a boundary goes through); host side:
 *   `runtime-types.ts` / `runtime-options.ts` (the contract and the options with their
 *   defaults), `worker-session.ts` (one worker from spawn to death: buffers, message routing,
 *   request/response), `snapshot-store.ts` (the start-up snapshot), `worker-supervisor.ts`
 *   (start once, replace, status), `run-execution.ts` (one run: timeout, interrupt, grace,
 *   result), `tool-calls.ts` + `tool-call-scope.ts` (answering `call_tool`, the re-entry guard),
 *   `output-drain.ts` (output of runs, the ring's drain), `hints.ts`, and this file.
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
 * - Starts are fast: a start-up snapshot (an interpreter with the prelude imported) is made by
 *   the first start and kept in memory and, with `snapshot: 'persist'`, in the platform's cache;
 *   later starts, restarts and processes restore it (`snapshot-store.ts`).
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
 * - Workspace sync copies files into `/workspace`, Python's working directory ('in', with their
 *   mtimes) and back ('out': new or changed files by mtime); deletions in Python are reported,
 *   not applied; `maxSyncBytes` bounds each direction (files beyond it are listed as skipped).
 */
import type { PackageInfo, PythonErrorInfo, ReadChangedResult } from './protocol.ts';
import { hintFor, runtimeDisposed } from './hints.ts';
import { nextId } from './ids.ts';
import { RunExecutor } from './run-execution.ts';
import { resolveOptions, RUN_TIMEOUT_HINT, runTimeoutProblem, type PyodideRuntimeOptions, type ResolvedOptions } from './runtime-options.ts';
import { createProcessRuntime } from './process-runtime.ts';
import { inNode } from './worker-handle.ts';
import type { PyodideRuntimeApi, RuntimeCore, RuntimeHost, SyncReport, ToolCallHandler } from './runtime-types.ts';
import { createRuntimePool } from './runtime-pool.ts';
import { resolvePoolOptions } from './pool-options.ts';
import { applyOut, filesIn } from './workspace-sync.ts';
import { cycleError, cycleFailure } from './tool-call-scope.ts';
import { ToolCallAnswerer } from './tool-calls.ts';
import type { WorkerSession } from './worker-session.ts';
import { WorkerSupervisor, type InfoError } from './worker-supervisor.ts';

export { DEFAULT_PACKAGE_INDEX, PYODIDE_VERSION } from './protocol.ts';
export { hintFor } from './hints.ts';
export { RuntimeOptionError } from './runtime-options.ts';
export type { PyodideRuntimeOptions } from './runtime-options.ts';
export type {
  BridgeCall,
  ExecuteOptions,
  ExecuteResult,
  InstallResult,
  PyodideRuntimeApi,
  RuntimeCore,
  RuntimeHost,
  RuntimeState,
  SyncReport,
  ToolCallHandler,
  WorkspaceLike,
} from './runtime-types.ts';

export type { PoolOptions } from './pool-options.ts';

/**
 * Creates the runtime: the shared runtime, and the pool of runtimes for sessions
 * (`runtime-pool.ts`). Nothing starts until `init()` (or the first call that needs Python).
 * In Node Python runs in confined child processes unless `isolation: 'thread'` (see the option).
 */
export function createPyodideRuntime(options: PyodideRuntimeOptions, host: RuntimeHost): PyodideRuntimeApi {
  const o = resolveOptions(options);
  const pool = resolvePoolOptions(options);
  const create = (h: RuntimeHost): RuntimeCore =>
    inNode() && o.isolation === 'process' ? createProcessRuntime(o, options.onToolCall, h) : createWorkerRuntime(o, options.onToolCall, h);
  return createRuntimePool(pool, create, host, o.defaultTimeoutMs);
}

/**
 * The runtime over a worker of this process or page (a Web Worker, or a Node worker thread): in a
 * browser, in Node's `thread` isolation, and inside the confined child of `process` isolation
 * (with `o.confine` set there).
 */
export function createWorkerRuntime(o: ResolvedOptions, onToolCall: ToolCallHandler | undefined, host: RuntimeHost): RuntimeCore {
  /** Identifies this runtime in tool-call scopes. */
  const self = {};
  const toolCalls = new ToolCallAnswerer(self, onToolCall, o.maxToolAnswerBytes);
  let packages: PackageInfo[] = [];
  /** Files as last synced: workspace path -> mtime in Python's file system. */
  let synced: Record<string, number> = {};
  let pythonModules: { path: string; source: string }[] = o.modules?.() ?? [];
  const supervisor = new WorkerSupervisor(o, {
    emit: host.emit,
    toolCalls,
    modules: () => pythonModules,
    onStarted: () => {
      synced = {};
      // A new interpreter has no installed distributions (a restart loses the installed ones), and
      // asking importlib.metadata costs ~0.3 s on a fresh worker: the list starts empty.
      packages = [];
    },
  });
  const runs = new RunExecutor(o, host.emit, supervisor);

  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = queue.then(op, op);
    queue = next.catch(() => undefined);
    return next;
  };
  const cycle = (method: string) => cycleError(self, method);
  const failure = (method: string) => cycleFailure(self, method);
  const notReady = (e: unknown): PythonErrorInfo => (e as InfoError).info ?? { type: 'RuntimeNotReady', message: String((e as Error).message ?? e), traceback: '' };

  async function listPackagesNow(l: WorkerSession): Promise<PackageInfo[]> {
    const r = await l.request<PackageInfo[]>({ type: 'list-packages' });
    return r.ok ? (r.value as PackageInfo[]) : packages;
  }

  const api: RuntimeCore = {
    async init() {
      // From a tool Python is waiting on, the runtime is running: it is initialized.
      if (cycle('init')) return;
      await serial(async () => {
        await supervisor.ensureLive();
      });
    },

    isReady: () => supervisor.status === 'ready' || supervisor.status === 'busy',

    getState: () => ({
      status: supervisor.status,
      pythonVersion: supervisor.info?.pythonVersion,
      pyodideVersion: supervisor.info?.pyodideVersion,
      transport: supervisor.info?.transport,
      packages,
      executions: runs.executions,
      memoryBytes: supervisor.memoryBytes,
      lastError: supervisor.lastError,
      restarts: supervisor.restarts,
      fromSnapshot: supervisor.info?.fromSnapshot,
    }),

    execute(code, opts = {}) {
      const runId = opts.runId ?? nextId('py');
      const timeoutMs = opts.timeoutMs ?? o.defaultTimeoutMs;
      const refused = cycle('execute');
      if (refused) return Promise.resolve(runs.errorResult(runId, refused, performance.now()));
      const badTimeout = opts.timeoutMs === undefined ? undefined : runTimeoutProblem(opts.timeoutMs);
      if (badTimeout) return Promise.resolve(runs.errorResult(runId, badTimeout, performance.now(), undefined, RUN_TIMEOUT_HINT));
      return serial(async () => {
        const t0 = performance.now();
        try {
          if (typeof code !== 'string') {
            return runs.errorResult(runId, { type: 'TypeError', message: `code must be a string, got ${typeof code}`, traceback: '' }, t0);
          }
          // When the runtime is not initialized (it could not start, or died between runs) the code
          // has not run: initialize and retry once. A crash during a run is not retried, since
          // running the same code again would likely crash again.
          let why: PythonErrorInfo | undefined;
          for (let attempt = 0; attempt < 2 && !supervisor.disposed; attempt++) {
            try {
              const l = await supervisor.ensureLive();
              if (opts.signal?.aborted) {
                return runs.errorResult(runId, { type: 'KeyboardInterrupt', message: 'cancelled before it started', traceback: '' }, t0, undefined, 'The run was cancelled by its caller; nothing ran.');
              }
              if (!l.dead) return await runs.run(l, code, runId, timeoutMs, opts.signal, opts.owner);
              why = { type: 'RuntimeNotReady', message: 'the Python worker stopped before the run could start', traceback: '' };
            } catch (e) {
              why = notReady(e);
            }
          }
          why ??= runtimeDisposed();
          const result = runs.errorResult(runId, { ...why, type: 'RuntimeNotReady' }, t0);
          if (!result.ok) supervisor.lastError = result.error;
          host.emit('python:started', { runId });
          host.emit('python:finished', { runId, ok: false, executionTime: result.executionTime, errorType: 'RuntimeNotReady' });
          return result;
        } catch (e) {
          return runs.errorResult(runId, { type: 'RuntimeError', message: String((e as Error)?.message ?? e), traceback: '' }, t0);
        }
      });
    },

    installPackage(spec) {
      const refused = cycle('installPackage');
      if (refused) return Promise.resolve({ ok: false as const, error: refused, hint: hintFor(refused) });
      return serial(async () => {
        try {
          const l = await supervisor.ensureLive();
          const msg = typeof spec === 'string' ? { type: 'install', spec: { source: spec } } : { type: 'install', spec: { fileName: spec.fileName, bytes: spec.bytes } };
          const r = await l.request<{ installed: string[] }>(msg);
          if (!r.ok) {
            const h = hintFor(r.error);
            return h ? { ok: false as const, error: r.error, hint: h } : { ok: false as const, error: r.error, hint: 'Check the package name, or install a wheel by URL or path.' };
          }
          const before = new Set(packages.map((p) => p.name.toLowerCase()));
          packages = await listPackagesNow(l);
          for (const p of packages) if (!before.has(p.name.toLowerCase())) host.emit('python:package-installed', { name: p.name, version: p.version });
          return { ok: true as const, installed: (r.value as { installed: string[] }).installed };
        } catch (e) {
          return { ok: false as const, error: (e as InfoError).info ?? { type: 'RuntimeNotReady', message: String(e), traceback: '' } };
        }
      });
    },

    listPackages() {
      // The list as of the last install: asking the busy worker would wait for the run.
      if (cycle('listPackages')) return Promise.resolve(packages);
      return serial(async () => {
        const l = await supervisor.ensureLive();
        packages = await listPackagesNow(l);
        return packages;
      });
    },

    syncWorkspace(direction, options = {}) {
      const refused = failure('syncWorkspace');
      if (refused) return Promise.reject(refused);
      return serial(async () => {
        const ws = host.workspace;
        if (!ws) throw new Error('[syncWorkspace] no workspace is connected to this runtime (load the Workspace upgrade)');
        const l = await supervisor.ensureLive();
        const report: SyncReport = { direction };
        if (direction === 'in' || direction === 'both') {
          // Copies: the buffers are transferred to the worker, and the workspace keeps its own.
          const { files: own, skipped, bytes } = filesIn(ws, o.maxSyncBytes);
          const files = own.map((f) => ({ ...f, data: f.data.slice() }));
          const r = await l.request({ type: 'write-files', root: '/workspace', files }, files.map((f) => f.data.buffer as ArrayBuffer));
          if (!r.ok) throw new Error(`[syncWorkspace] writing into Python failed: ${r.error.message}`);
          for (const f of files) synced[f.path] = f.mtime;
          report.in = { count: files.length, bytes, skipped };
        }
        if (direction === 'out' || direction === 'both') {
          const r = await l.request<ReadChangedResult>({ type: 'read-changed', root: '/workspace', known: synced, maxBytes: o.maxSyncBytes });
          if (!r.ok) throw new Error(`[syncWorkspace] reading from Python failed: ${r.error.message}`);
          const changed = r.value as ReadChangedResult;
          for (const f of changed.files) synced[f.path] = f.mtime ?? Date.now();
          for (const path of changed.deleted) delete synced[path];
          report.out = await applyOut(ws, changed.files, changed.deleted, changed.skipped, options);
        }
        return report;
      });
    },

    interrupt() {
      runs.interrupt();
    },

    setToolCallHandler(handler, observe) {
      toolCalls.setHandler(handler, observe);
    },

    setPythonModules(files) {
      const refused = failure('setPythonModules');
      if (refused) return Promise.reject(refused);
      pythonModules = files;
      return serial(async () => {
        const l = supervisor.live;
        // Passed in the init message of the next start; a worker that got these in its own has them.
        if (!l || l.dead || l.startedWith === files) return;
        const r = await l.request({
          type: 'write-files',
          root: '/armature/lib',
          files: files.map((f) => ({ path: f.path, data: new TextEncoder().encode(f.source) })),
        });
        if (!r.ok) throw new Error(`[setPythonModules] ${r.error.message}`);
      });
    },

    restart() {
      const refused = failure('restart');
      if (refused) return Promise.reject(refused);
      return serial(() => supervisor.replace());
    },

    reset() {
      const refused = failure('reset');
      if (refused) return Promise.reject(refused);
      return serial(async () => {
        const l = await supervisor.ensureLive();
        const r = await l.request({ type: 'reset' });
        if (!r.ok) throw new Error(`[reset] ${r.error.message}`);
      });
    },

    dispose: () => supervisor.dispose(),
  };
  return api;
}
