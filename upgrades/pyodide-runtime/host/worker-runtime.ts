/**
 * The runtime over one worker of this process or page (see the design notes in `runtime.ts`):
 * a promise queue in front of the supervisor, the run executor and the tool-call answerer.
 */
import type { PackageInfo, PythonErrorInfo, ReadChangedResult } from '../protocol/protocol.ts';
import { hintFor, runtimeDisposed } from '../protocol/hints.ts';
import { installRefusal } from '../protocol/install-policy.ts';
import { inNode } from './worker-handle.ts';
import { nextId } from '../protocol/ids.ts';
import { RunExecutor } from './run-execution.ts';
import { RUN_TIMEOUT_HINT, runTimeoutProblem, type ResolvedOptions } from './runtime-options.ts';
import type { RuntimeCore, RuntimeHost, SyncReport, ToolCallHandler } from './runtime-types.ts';
import { applyOut, filesIn } from './workspace-sync.ts';
import { cycleError, cycleFailure } from './tool-call-scope.ts';
import { ToolCallAnswerer } from './tool-calls.ts';
import type { WorkerSession } from './worker-session.ts';
import { WorkerSupervisor, type InfoError } from './worker-supervisor.ts';

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
              if (!l.dead) return await runs.run(l, code, runId, timeoutMs, opts.signal);
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
      // Checked before anything starts or is fetched: the same network policy as Python's fetch.
      const denied = typeof spec === 'string' ? installRefusal(spec, o.network, o.packageIndexURL, inNode()) : undefined;
      if (denied) return Promise.resolve({ ok: false as const, ...denied });
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
        // A newer set came meanwhile: it is installed after this (or was in a start's init message).
        if (pythonModules !== files) return;
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
