/**
 * The runtime pool: the shared runtime for calls without a session (one set of globals, one run at
 * a time, as it always was), and runtimes for sessions, each used by one session only.
 *
 * Design notes (for the blueprint):
 * - Isolation unit = a session. Every session starts on an interpreter no other session has run
 *   code in, and a runtime a session gives up is stopped, never reset and reused: Python has no
 *   boundary inside one interpreter (module patches, `builtins`, `sys.modules`, `os.environ`, files
 *   outside /workspace all survive a reset of the globals), so only a new interpreter is clean.
 * - Warm spares (`poolSpares`) keep a new session's first run fast: runtimes started from the
 *   start-up snapshot and never used, started in the background once sessions are used and again
 *   each time one is taken; one unused for `poolIdleMs` stops.
 * - Bound while running, not for life: a session holds its runtime while it runs code and for
 *   `poolGraceMs` after. Past that, an idle session's runtime is stopped at once when another
 *   session waits (or when the pool holds more than `poolSize`), and after `poolIdleMs` otherwise;
 *   its next run starts on a fresh one with a notice that its globals were lost. So sessions that
 *   vanish without ending (an MCP client gone without DELETE) never starve the others.
 * - `poolSize` bounds the runtimes that hold a session, less those whose Python waits in
 *   `call_tool` meanwhile: a run waiting for an agent-made tool (whose code runs in a session of
 *   its own) must not hold a slot against the tool it waits for. The pool may then hold more
 *   runtimes than `poolSize` for a while; idle ones go first once their grace is over.
 * - Runs wait for a runtime in one FIFO queue (`pool-queue.ts`) of at most `poolQueueLimit`,
 *   served in order; a session's runs after the first join its runtime's own queue. The life of
 *   the sessions' runtimes is `session-runtimes.ts`; this file is the API over it.
 * - Modules: every runtime gets the shared files (`setPythonModules`, the generated `tools.*`),
 *   and a session's runtime also the session's own (`setSessionModules`: an agent-made tool's code,
 *   which no other interpreter ever sees) — `pool-modules.ts`.
 * - The pool's runtimes report runs (`python:started` / `stdout` / `stderr` / `finished`, by run
 *   id) as the shared one does; their own status and start-up progress are summed up as
 *   `python:pool` instead (`pool-events.ts`), so `python:state` stays the shared runtime's.
 */
import { nameProblem } from '../../../src/kernel/bounded.ts';
import { nextId } from '../protocol/ids.ts';
import { PoolEvents } from './pool-events.ts';
import { PoolModules } from './pool-modules.ts';
import type { ResolvedPoolOptions } from './pool-options.ts';
import { invalidSession, refusalError, type Refusal } from './pool-refusals.ts';
import { SessionRuntimes, type Member } from './session-runtimes.ts';
import { RUN_TIMEOUT_HINT, runTimeoutProblem } from '../host/runtime-options.ts';
import type { ExecuteResult, PyodideRuntimeApi, RuntimeCore, RuntimeHost } from '../host/runtime-types.ts';

/**
 * Creates the pool over `create` (which makes one runtime reporting to the host it is given).
 * `defaultTimeoutMs` bounds the wait of an operation that sets no timeout.
 */
export function createRuntimePool(o: ResolvedPoolOptions, create: (host: RuntimeHost) => RuntimeCore, host: RuntimeHost, defaultTimeoutMs: number): PyodideRuntimeApi {
  const shared = create(host);
  const modules = new PoolModules();
  // The pool's runtimes report runs as the shared one does; their status is the pool's.
  const memberHost: RuntimeHost = {
    emit(type, payload) {
      if (type === 'python:state' || type === 'python:progress') return;
      host.emit(type, payload);
    },
    ...(host.workspace ? { workspace: host.workspace } : {}),
  };
  const events = new PoolEvents(() => runtimes.state(), (s) => host.emit('python:pool', s));
  const changed = () => events.changed();
  const runtimes: SessionRuntimes = new SessionRuntimes(o, () => create(memberHost), modules, changed);

  const isRefusal = (r: Member | Refusal): r is Refusal => 'refused' in r;

  /** Runs `op` on the session's runtime, holding it for the time `op` takes. */
  async function within<T>(session: string, waitMs: number, signal: AbortSignal | undefined, op: (m: Member) => Promise<T>, refused: (r: Refusal) => T): Promise<T> {
    const got = await runtimes.acquire(session, waitMs, signal);
    if (isRefusal(got)) {
      changed();
      return refused(got);
    }
    try {
      await modules.updated(got.rt);
      return await op(got);
    } finally {
      runtimes.release(got);
    }
  }

  const api: PyodideRuntimeApi = {
    init: () => shared.init(),
    isReady: () => shared.isReady(),
    getState: (options = {}) => {
      const m = options.session === undefined ? undefined : runtimes.serving(options.session);
      return { ...(m?.rt ?? shared).getState(), pool: runtimes.state() };
    },

    execute(code, opts = {}) {
      const { session, ...rest } = opts;
      if (session === undefined) {
        // Called at once when no update is pending: in browsers a tool's re-entry scope (the
        // CycleError check) lasts only for the synchronous start of its handler.
        return modules.isPending(shared) ? modules.updated(shared).then(() => shared.execute(code, rest)) : shared.execute(code, rest);
      }
      const runId = rest.runId ?? nextId('py');
      const t0 = performance.now();
      // Refused before it could wait for a runtime (the wait is bounded by the same timeout).
      const badTimeout = rest.timeoutMs === undefined ? undefined : runTimeoutProblem(rest.timeoutMs);
      if (badTimeout) return Promise.resolve({ ok: false, error: badTimeout, hint: RUN_TIMEOUT_HINT, stdout: '', stderr: '', executionTime: 0, runId });
      return within(
        session,
        rest.timeoutMs ?? defaultTimeoutMs,
        rest.signal,
        async (m) => {
          const notice = m.notice;
          m.notice = undefined;
          const r = await m.rt.execute(code, { ...rest, runId });
          runtimes.runs++;
          return notice ? { ...r, notice: r.notice ? `${notice} ${r.notice}` : notice } : r;
        },
        (r): ExecuteResult => {
          const executionTime = performance.now() - t0;
          host.emit('python:started', { runId });
          host.emit('python:finished', { runId, ok: false, executionTime, errorType: r.refused.type });
          return { ok: false, error: r.refused, hint: r.hint, stdout: '', stderr: '', executionTime, runId };
        },
      );
    },

    installPackage(spec, options = {}) {
      if (options.session === undefined) return shared.installPackage(spec);
      return within(options.session, defaultTimeoutMs, undefined, (m) => m.rt.installPackage(spec), (r) => ({ ok: false as const, error: r.refused, hint: r.hint }));
    },

    listPackages(options = {}) {
      if (options.session === undefined) return shared.listPackages();
      // A runtime running the session's code answers from its last known list: asking it would
      // wait behind the run, which may be the one asking (Python's call_tool, in browsers too).
      const busy = runtimes.serving(options.session);
      if (busy && busy.inflight > 0) return Promise.resolve(busy.rt.getState().packages);
      return within(options.session, defaultTimeoutMs, undefined, (m) => m.rt.listPackages(), (r) => {
        throw refusalError(r);
      });
    },

    async syncWorkspace(direction, options = {}) {
      const { session, ...rest } = options;
      if (session === undefined) return shared.syncWorkspace(direction, rest);
      return within(session, defaultTimeoutMs, undefined, (m) => m.rt.syncWorkspace(direction, rest), (r) => {
        throw refusalError(r);
      });
    },

    interrupt(session) {
      if (session === undefined) shared.interrupt();
      else runtimes.serving(session)?.rt.interrupt();
    },

    async endSession(session) {
      modules.setOwn(session, undefined);
      runtimes.end(session);
    },

    setToolCallHandler(h, observe) {
      shared.setToolCallHandler(h, observe);
      runtimes.setHandler(h, observe);
    },

    /**
     * Every runtime takes the modules in its own turn (a busy one after its run under way), and an
     * operation on a runtime waits for that runtime's update first. So this resolves at once: a
     * run never waits for another runtime's run to get the modules.
     */
    async setPythonModules(files) {
      modules.setShared(files, [[shared, undefined], ...runtimes.runtimes()]);
    },

    async setSessionModules(session, files) {
      const problem = nameProblem(session);
      if (problem) throw refusalError(invalidSession(session, problem));
      modules.setOwn(session, files.length ? files : undefined);
      const m = runtimes.bound(session);
      if (m) modules.send(m.rt, session);
    },

    restart: () => shared.restart(),
    reset: () => shared.reset(),

    async dispose() {
      events.stop();
      await Promise.all([shared.dispose(), runtimes.dispose()]);
    },
  };
  return api;
}
