/**
 * The runtime pool: the shared runtime for calls without a session (one set of globals, one run at
 * a time, as it always was), and up to `poolSize` runtimes for sessions.
 *
 * Design notes (for the blueprint):
 * - A session is bound to one runtime of its own while it lives: its globals are that
 *   interpreter's, no other session's code runs there meanwhile, and its runs go through that
 *   runtime in call order. Runs of different sessions run at the same time on different runtimes
 *   (workers or confined child processes), which is where the pool's speed comes from.
 * - A session with no runtime takes a warm free one, else a new one (started from the start-up
 *   snapshot) while the pool has fewer than `poolSize`; else its run waits in one FIFO queue of at
 *   most `poolQueueLimit` runs. Past the limit a run is refused at once with `RUNTIME_BUSY`; a
 *   waiting run gives up with `RUNTIME_BUSY` after its own timeout, or when its caller cancels it.
 * - A session gives its runtime up when it ends (`endSession`, the `session:ended` event) or after
 *   `poolIdleMs` without activity. The runtime's globals are reset before the next session's code
 *   runs: by the worker itself when the runtime goes straight to a waiting session (its runs carry
 *   a new `owner`), else at once (the same `reset` as the shared runtime's); what is not globals
 *   (imported modules, files Python wrote under its own file system) stays with the worker. A
 *   runtime free for `poolIdleMs` stops. A session whose runtime was reclaimed while idle is told
 *   at its next run (`notice`) that its globals were lost.
 * - The pool's runtimes report runs (`python:started` / `stdout` / `stderr` / `finished`, by run
 *   id) as the shared one does; their own status and start-up progress are summed up as
 *   `python:pool` instead (`pool-events.ts`), so `python:state` stays the shared runtime's.
 */
import { nameProblem, quote, timerMs } from '../../../src/kernel/bounded.ts';
import type { PythonPoolState } from '../../../src/contracts/python-events.ts';
import { nextId } from '../protocol/ids.ts';
import { PoolEvents } from './pool-events.ts';
import { PoolModules } from './pool-modules.ts';
import type { ResolvedPoolOptions } from './pool-options.ts';
import { cancelled, disposedWhileWaiting, invalidSession, poolDisposed, queueFull, refusalError, waitedTooLong, type Refusal } from './pool-refusals.ts';
import { RUN_TIMEOUT_HINT, runTimeoutProblem } from '../host/runtime-options.ts';
import type { BridgeCall, ExecuteResult, PyodideRuntimeApi, RuntimeCore, RuntimeHost, ToolCallHandler } from '../host/runtime-types.ts';

/** One runtime of the pool. */
interface Member {
  rt: RuntimeCore;
  /** The session it serves; undefined while free or being reset. */
  session?: string;
  /** This hold of the runtime by its session: its runs' `owner`, so the worker knows when globals change hands. */
  owner?: string;
  /** Operations of its session under way (runs, installs, syncs). */
  inflight: number;
  /** The idle reclaim (bound) or the stop (free). */
  timer?: ReturnType<typeof setTimeout>;
  /** What the session's next run must be told (its globals were lost). */
  notice?: string;
  /** The session ended while something was under way: free it when that finishes. */
  ending?: boolean;
}

/** A run (or install, or sync) waiting for a runtime. */
interface Waiter {
  session: string;
  /** Ends the wait: with the runtime, or with why there is none. */
  grant(r: Member | Refusal): void;
}

/** Most sessions remembered as having lost their runtime, to tell them so at their next run. */
const MAX_RECLAIMED = 4096;

/**
 * Creates the pool over `create` (which makes one runtime reporting to the host it is given).
 * `defaultTimeoutMs` bounds the wait of an operation that sets no timeout.
 */
export function createRuntimePool(o: ResolvedPoolOptions, create: (host: RuntimeHost) => RuntimeCore, host: RuntimeHost, defaultTimeoutMs: number): PyodideRuntimeApi {
  const shared = create(host);
  const members = new Set<Member>();
  const sessions = new Map<string, Member>();
  const free: Member[] = [];
  const waiting: Waiter[] = [];
  /** Sessions whose runtime was reclaimed while idle, or that ended -> what to tell them. */
  const reclaimed = new Map<string, string>();
  let handler: { h: ToolCallHandler | undefined; observe?: (call: BridgeCall) => void } | undefined;
  const modules = new PoolModules();
  let disposed = false;
  /** Runs finished on session runtimes. */
  let runs = 0;

  const state = (): PythonPoolState => ({
    size: o.size,
    workers: members.size,
    busy: [...members].filter((m) => m.inflight > 0).length,
    sessions: sessions.size,
    queued: waiting.length,
    queueLimit: o.queueLimit,
    runs,
  });
  const events = new PoolEvents(state, (s) => host.emit('python:pool', s));
  const changed = () => events.changed();

  // The pool's runtimes report runs as the shared one does; their status is the pool's.
  const memberHost: RuntimeHost = {
    emit(type, payload) {
      if (type === 'python:state' || type === 'python:progress') return;
      host.emit(type, payload);
    },
    ...(host.workspace ? { workspace: host.workspace } : {}),
  };

  function spawn(): Member {
    const rt = create(memberHost);
    const m: Member = { rt, inflight: 0 };
    if (handler) connect(m);
    modules.send(rt);
    members.add(m);
    return m;
  }

  /** The runtime serving `session`: bound to it, or still finishing its run after the session ended. */
  function serving(session: string): Member | undefined {
    return sessions.get(session) ?? [...members].find((m) => m.session === session);
  }

  /** Gives `m` the tool-call handler, telling it the session `m` serves at the time of each call. */
  function connect(m: Member): void {
    const h = handler?.h;
    m.rt.setToolCallHandler(h && ((name, args, instance) => h(name, args, instance, m.session)), handler?.observe);
  }

  function stop(m: Member): void {
    clearTimeout(m.timer);
    members.delete(m);
    modules.forget(m.rt);
    const i = free.indexOf(m);
    if (i >= 0) free.splice(i, 1);
    void m.rt.dispose().catch(() => undefined);
    changed();
    // Room for a new runtime: the first waiting session gets one.
    if (waiting.length && !disposed) hand(spawn());
  }

  function bind(m: Member, session: string): void {
    m.session = session;
    m.owner = nextId('hold');
    sessions.set(session, m);
    const told = reclaimed.get(session);
    if (told !== undefined) {
      reclaimed.delete(session);
      m.notice = told;
    }
  }

  function take(m: Member): Member {
    m.inflight++;
    clearTimeout(m.timer);
    m.timer = undefined;
    changed();
    return m;
  }

  function release(m: Member): void {
    m.inflight--;
    if (m.inflight === 0 && m.session !== undefined && !disposed) {
      if (m.ending) void unbind(m);
      else m.timer = setTimeout(() => reclaim(m), timerMs(o.idleMs));
    }
    changed();
  }

  /** The idle reclaim: the session loses its runtime and is told so at its next run. */
  function reclaim(m: Member): void {
    const session = m.session;
    if (session === undefined || m.inflight > 0) return;
    remember(session, `session ${quote(session)} ran nothing for ${o.idleMs} ms, so its Python runtime went to other work: its globals, imports and installed packages were lost (poolIdleMs sets how long a session keeps its runtime).`);
    void unbind(m);
  }

  /** What to tell `session` at its next run, if it has one (the oldest such notes are forgotten first). */
  function remember(session: string, notice: string): void {
    reclaimed.delete(session);
    if (reclaimed.size >= MAX_RECLAIMED) reclaimed.delete(reclaimed.keys().next().value!);
    reclaimed.set(session, notice);
  }

  /** Frees `m` from its session: fresh globals, then to a waiting session or the free list. */
  async function unbind(m: Member): Promise<void> {
    clearTimeout(m.timer);
    m.timer = undefined;
    if (m.session !== undefined && sessions.get(m.session) === m) sessions.delete(m.session);
    m.session = undefined;
    m.owner = undefined;
    m.ending = false;
    m.notice = undefined;
    changed();
    // A session waits: it gets the runtime at once, and the worker resets the globals before its
    // first run (a new owner), which saves the reset's own round trip. Else the globals are dropped
    // now, not kept while the runtime is free.
    if (waiting.length) return hand(m);
    try {
      // A runtime that never started has no globals to drop.
      if (m.rt.getState().status !== 'idle') await m.rt.reset();
    } catch {
      stop(m);
      return;
    }
    if (disposed) return;
    hand(m);
  }

  /** Gives a free runtime to the first waiting session (and its other waiting runs), else keeps it warm. */
  function hand(m: Member): void {
    const first = waiting.shift();
    if (!first) {
      free.push(m);
      clearTimeout(m.timer);
      m.timer = setTimeout(() => stop(m), timerMs(o.idleMs));
      changed();
      return;
    }
    bind(m, first.session);
    first.grant(take(m));
    for (let i = 0; i < waiting.length; ) {
      const w = waiting[i]!;
      if (w.session !== first.session) i++;
      else {
        waiting.splice(i, 1);
        w.grant(take(m));
      }
    }
    changed();
  }

  /** The session's runtime, taken for one operation; or why there is none. */
  function acquire(session: string, waitMs: number, signal?: AbortSignal): Member | Refusal | Promise<Member | Refusal> {
    const problem = nameProblem(session);
    if (problem) return invalidSession(session, problem);
    if (disposed) return poolDisposed();
    const bound = sessions.get(session);
    if (bound) return take(bound);
    const m = free.pop() ?? (members.size < o.size ? spawn() : undefined);
    if (m) {
      bind(m, session);
      return take(m);
    }
    if (waiting.length >= o.queueLimit) return queueFull(session, o.size, waiting.length, o.queueLimit);
    if (signal?.aborted) return cancelled();
    return new Promise((resolve) => {
      const done = (r: Member | Refusal) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const leave = (r: Refusal) => {
        const i = waiting.indexOf(w);
        if (i < 0) return; // granted meanwhile
        waiting.splice(i, 1);
        changed();
        done(r);
      };
      const onAbort = () => leave(cancelled());
      const timer = setTimeout(() => leave(waitedTooLong(session, o.size, waitMs)), timerMs(waitMs));
      const w: Waiter = { session, grant: done };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(w);
      changed();
    });
  }

  const isRefusal = (r: Member | Refusal): r is Refusal => 'refused' in r;

  /** Runs `op` on the session's runtime, holding it for the time `op` takes. */
  async function within<T>(session: string, waitMs: number, signal: AbortSignal | undefined, op: (m: Member) => Promise<T>, refused: (r: Refusal) => T): Promise<T> {
    const got = await acquire(session, waitMs, signal);
    if (isRefusal(got)) {
      changed();
      return refused(got);
    }
    try {
      return await op(got);
    } finally {
      release(got);
    }
  }

  const api: PyodideRuntimeApi = {
    init: () => shared.init(),
    isReady: () => shared.isReady(),
    getState: (options = {}) => {
      const m = options.session === undefined ? undefined : serving(options.session);
      return { ...(m?.rt ?? shared).getState(), pool: state() };
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
          await modules.updated(m.rt);
          const r = await m.rt.execute(code, { ...rest, runId, ...(m.owner === undefined ? {} : { owner: m.owner }) });
          runs++;
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
      const busy = serving(options.session);
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
      else sessions.get(session)?.rt.interrupt();
    },

    async endSession(session) {
      const m = sessions.get(session);
      if (!m) return;
      // A session name used again (an agent run's follow-up) learns that its globals are gone.
      remember(session, `session ${quote(session)} ended before this run, so its Python runtime went to other work: its globals, imports and installed packages were lost.`);
      if (m.inflight > 0) {
        // Its runs under way finish there; a later run of the name starts on fresh globals.
        sessions.delete(session);
        m.ending = true;
      } else await unbind(m);
    },

    setToolCallHandler(h, observe) {
      handler = observe ? { h, observe } : { h };
      shared.setToolCallHandler(h, observe);
      for (const m of members) connect(m);
    },

    /**
     * Every runtime takes the modules in its own turn (a busy one after its run under way), and an
     * operation on a runtime waits for that runtime's update first. So this resolves at once: a
     * run never waits for another runtime's run to get the modules.
     */
    async setPythonModules(files) {
      modules.set(files, [shared, ...[...members].map((m) => m.rt)]);
    },

    restart: () => shared.restart(),
    reset: () => shared.reset(),

    async dispose() {
      disposed = true;
      events.stop();
      for (const w of waiting.splice(0)) w.grant(disposedWhileWaiting());
      const all = [...members];
      for (const m of all) clearTimeout(m.timer);
      members.clear();
      sessions.clear();
      free.length = 0;
      await Promise.all([shared.dispose(), ...all.map((m) => m.rt.dispose().catch(() => undefined))]);
    },
  };
  return api;
}
