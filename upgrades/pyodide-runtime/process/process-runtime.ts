/**
 * PyodideRuntime in `process` isolation, Node's default: the runtime itself (its worker thread,
 * interrupt buffer, `call_tool` slot and output ring) runs in a confined child process
 * (`process-child.ts`, started by `process-link.ts`), and this host-side object forwards the API
 * to it. The child is not trusted: everything it sends is validated (`process-protocol.ts`,
 * `process-connection.ts`), its events may only name the run in flight, its tool calls go through
 * the host's handler (the ToolRunner, with the persona's allow-list) and its fetches through the
 * host's policy (`process-calls.ts`), its start-up snapshots are kept apart (`process-snapshots.ts`),
 * and files come back only as the answer to a `syncWorkspace` the host asked for, within its
 * byte limit. The child's crash (out of memory, an exit) fails what was in flight and a new child starts.
 *
 * No Node module is imported here at the top: browsers load this file (and never call it).
 */
import { hintFor } from '../protocol/hints.ts';
import { installRefusal } from '../protocol/install-policy.ts';
import { nextId } from '../protocol/ids.ts';
import { ChildCallAnswerer } from './process-calls.ts';
import { ChildConnection } from './process-connection.ts';
import { ExecuteAnswerSchema, InstallAnswerSchema, PackagesAnswerSchema, SyncAnswerSchema } from '../protocol/process-protocol.ts';
import type { PackageInfo, PythonErrorInfo } from '../protocol/protocol.ts';
import { RUN_TIMEOUT_HINT, runTimeoutProblem, type ResolvedOptions } from '../host/runtime-options.ts';
import { applyOut, filesIn } from '../host/workspace-sync.ts';
import type { ExecuteResult, InstallResult, RuntimeCore, RuntimeHost, RuntimeState, SyncReport, ToolCallHandler } from '../host/runtime-types.ts';
import { cycleError, cycleFailure } from '../host/tool-call-scope.ts';

/**
 * Creates the runtime of `process` isolation over the resolved options. `onToolCall` answers
 * `call_tool` (PythonTool sets it later with `setToolCallHandler`).
 */
export function createProcessRuntime(o: ResolvedOptions, onToolCall: ToolCallHandler | undefined, host: RuntimeHost): RuntimeCore {
  /** Identifies this runtime in tool-call scopes. */
  const self = {};
  const calls = new ChildCallAnswerer(o, self, {
    post: (l, msg) => conn.post(l, msg),
    died: (l, exit) => conn.died(l, exit),
  });
  calls.handler = onToolCall;
  const conn: ChildConnection = new ChildConnection(o, host, calls);

  const errorResult = (runId: string, error: PythonErrorInfo, t0: number, hint?: string): ExecuteResult => {
    const h = hint ?? hintFor(error);
    const base = { ok: false as const, error, stdout: '', stderr: '', executionTime: performance.now() - t0, runId };
    return h ? { ...base, hint: h } : base;
  };

  const api: RuntimeCore = {
    async init() {
      if (cycleError(self, 'init')) return;
      const r = await conn.rpc('init', []);
      if (!r.ok) throw Object.assign(new Error(r.error.message), { info: r.error });
    },

    isReady: () => conn.status === 'ready' || conn.status === 'busy',

    getState: () => {
      const state: RuntimeState = { ...conn.childState, status: conn.status, restarts: conn.childState.restarts + conn.replaced };
      const error = conn.lastError ?? conn.childState.lastError;
      if (error) state.lastError = error;
      return state;
    },

    async execute(code, opts = {}) {
      const runId = opts.runId ?? nextId('py');
      const timeoutMs = opts.timeoutMs ?? o.defaultTimeoutMs;
      const t0 = performance.now();
      const refused = cycleError(self, 'execute');
      if (refused) return errorResult(runId, refused, t0);
      const badTimeout = opts.timeoutMs === undefined ? undefined : runTimeoutProblem(opts.timeoutMs);
      if (badTimeout) return errorResult(runId, badTimeout, t0, RUN_TIMEOUT_HINT);
      if (typeof code !== 'string') return errorResult(runId, { type: 'TypeError', message: `code must be a string, got ${typeof code}`, traceback: '' }, t0);
      const l = await conn.live().catch(() => undefined);
      l?.queued.set(runId, timeoutMs);
      // Covers a start-up of Python and the grace after an ignored interrupt.
      const watchdog = timeoutMs + o.interruptGraceMs + (conn.status === 'ready' ? 15_000 : o.initTimeoutMs);
      // The caller's signal cancels the run in the child (after the call, so the child knows the run).
      const signal = opts.signal;
      let unlisten: (() => void) | undefined;
      // Aborted already when the call is sent: the child does not start it (as a run waiting for its turn).
      const args = () => [code, signal?.aborted ? { timeoutMs, runId, aborted: true } : { timeoutMs, runId }];
      const r = await conn.rpc('execute', args, watchdog, (sent) => {
        if (!signal || signal.aborted) return;
        const abort = () => conn.post(sent, { type: 'abort', id: 'abort', runId });
        signal.addEventListener('abort', abort, { once: true });
        unlisten = () => signal.removeEventListener('abort', abort);
      });
      unlisten?.();
      l?.queued.delete(runId);
      if (!r.ok) {
        if (r.error.type === 'WorkerCrashed') {
          return errorResult(runId, r.error, t0, 'The Python process stopped during the run (for example out of memory, or an exit); a new one starts with the next call: globals, imports and installed packages were lost.');
        }
        host.emit('python:started', { runId });
        host.emit('python:finished', { runId, ok: false, executionTime: performance.now() - t0, errorType: r.error.type });
        return errorResult(runId, r.error, t0);
      }
      const result = ExecuteAnswerSchema.safeParse(r.value);
      if (!result.success || result.data.runId !== runId) return errorResult(runId, { type: 'ProtocolError', message: 'the Python process answered the run with something that is not a result', traceback: '' }, t0);
      return result.data as ExecuteResult;
    },

    async installPackage(spec) {
      const refused = cycleError(self, 'installPackage');
      if (refused) return { ok: false as const, error: refused, hint: hintFor(refused) };
      // Checked here, before the child (which checks again) is asked: the same policy as Python's fetch.
      const denied = typeof spec === 'string' ? installRefusal(spec, o.network, o.packageIndexURL, true) : undefined;
      if (denied) return { ok: false as const, ...denied };
      let arg: string | { fileName: string; bytes: Uint8Array } = spec;
      // The child may not read the host's files: a local wheel is read here and sent as bytes.
      if (typeof spec === 'string' && (spec.startsWith('/') || spec.startsWith('file:') || /^[A-Za-z]:[\\/]/.test(spec))) {
        try {
          const { readFile } = await import('node:fs/promises');
          const { basename } = await import('node:path');
          const { fileURLToPath } = await import('node:url');
          const path = spec.startsWith('file:') ? fileURLToPath(spec) : spec;
          arg = { fileName: basename(path), bytes: new Uint8Array(await readFile(path)) };
        } catch (e) {
          const error: PythonErrorInfo = { type: 'PackageInstallError', message: `could not read ${spec}: ${(e as Error).message}`, traceback: '' };
          return { ok: false as const, error, hint: 'Check the path of the wheel.' };
        }
      }
      const r = await conn.rpc('installPackage', [arg]);
      if (!r.ok) return { ok: false as const, error: r.error, hint: hintFor(r.error) ?? 'Check the package name, or install a wheel by URL or path.' };
      const out = InstallAnswerSchema.safeParse(r.value);
      if (!out.success) return { ok: false as const, error: { type: 'ProtocolError', message: 'the Python process answered the install with something unexpected', traceback: '' } };
      return out.data as InstallResult;
    },

    async listPackages() {
      if (cycleError(self, 'listPackages')) return conn.childState.packages;
      const r = await conn.rpc('listPackages', []);
      const list = r.ok ? PackagesAnswerSchema.safeParse(r.value) : undefined;
      return list?.success ? (list.data as PackageInfo[]) : conn.childState.packages;
    },

    async syncWorkspace(direction, options = {}) {
      const refused = cycleFailure(self, 'syncWorkspace');
      if (refused) throw refused;
      const ws = host.workspace;
      if (!ws) throw new Error('[syncWorkspace] no workspace is connected to this runtime (load the Workspace upgrade)');
      const { files, skipped } = direction === 'out' ? { files: [], skipped: [] } : filesIn(ws, o.maxSyncBytes);
      const r = await conn.rpc('syncWorkspace', [direction, files]);
      if (!r.ok) throw Object.assign(new Error(`[syncWorkspace] ${r.error.message}`), { info: r.error });
      const answer = SyncAnswerSchema.safeParse(r.value);
      if (!answer.success) throw new Error('[syncWorkspace] the Python process answered with something unexpected');
      const report = answer.data.report as SyncReport;
      if (report.in) report.in.skipped = [...skipped, ...report.in.skipped];
      // Files come back only as this answer, and never more than the sync's byte limit.
      let bytes = 0;
      for (const f of answer.data.written) {
        bytes += f.data.byteLength;
        if (bytes > o.maxSyncBytes) throw new Error(`[syncWorkspace] the Python process sent back more than maxSyncBytes (${o.maxSyncBytes})`);
      }
      if (report.out) report.out = await applyOut(ws, answer.data.written, report.out.deleted, report.out.skipped, options);
      return report;
    },

    interrupt() {
      void conn
        .current()
        ?.then((l) => {
          conn.post(l, { type: 'interrupt', id: 'interrupt' });
          calls.cutCalls(l);
        })
        .catch(() => undefined);
    },

    setToolCallHandler(h, obs) {
      calls.handler = h;
      calls.observe = obs;
    },

    async setPythonModules(files) {
      const refused = cycleFailure(self, 'setPythonModules');
      if (refused) throw refused;
      conn.modules = files;
      const current = await conn.current()?.catch(() => undefined);
      // A newer set came while this one waited for the child: that call installs it (installing
      // this one after it would leave the child with the older files).
      if (conn.modules !== files) return;
      // A child not started yet gets them in its start message; one that got these in it has them.
      if (!current || current.dead || current.startedWith === files) return;
      const r = await conn.rpc('setPythonModules', [files]);
      if (!r.ok) throw new Error(`[setPythonModules] ${r.error.message}`);
    },

    async restart() {
      const refused = cycleFailure(self, 'restart');
      if (refused) throw refused;
      const r = await conn.rpc('restart', []);
      if (!r.ok) throw Object.assign(new Error(`[restart] ${r.error.message}`), { info: r.error });
    },

    async reset() {
      const refused = cycleFailure(self, 'reset');
      if (refused) throw refused;
      const r = await conn.rpc('reset', []);
      if (!r.ok) throw new Error(`[reset] ${r.error.message}`);
    },

    dispose: () => conn.dispose(),
  };
  return api;
}
