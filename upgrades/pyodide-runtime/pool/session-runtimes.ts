/**
 * The runtimes of the pool's sessions, from start to stop (see the design notes in
 * `runtime-pool.ts`): warm spares, one runtime per session held while it runs and for a grace
 * after, idle ones stopped for a waiting session or after the idle time, and the queue served in
 * order whenever there is room. A runtime serves one session in its life and is then stopped.
 */
import { nameProblem, quote, timerMs } from '../../../src/kernel/bounded.ts';
import type { PythonPoolState } from '../../../src/contracts/python-events.ts';
import type { PoolModules } from './pool-modules.ts';
import type { ResolvedPoolOptions } from './pool-options.ts';
import { PoolQueue } from './pool-queue.ts';
import { disposedWhileWaiting, invalidSession, poolDisposed, type Refusal } from './pool-refusals.ts';
import type { BridgeCall, RuntimeCore, ToolCallHandler } from '../host/runtime-types.ts';

/** One runtime of the pool: a warm spare, or the runtime of one session. */
export interface Member {
  rt: RuntimeCore;
  /** The session it serves; undefined while it is a spare. Never changes once set. */
  session?: string;
  /** Operations of its session under way (runs, installs, syncs). */
  inflight: number;
  /** `call_tool` calls its Python waits on: while any, it does not count against `poolSize`. */
  calls: number;
  /** When its last operation ended (`performance.now()`). */
  idleSince: number;
  /** Until when it is kept even if another session waits. */
  graceUntil: number;
  /** The end of its grace, its idle stop (bound), or its unused stop (spare). */
  timer?: ReturnType<typeof setTimeout>;
  /** What the session's next run must be told (its globals were lost). */
  notice?: string;
  /** The session ended while something was under way: stop it when that finishes. */
  ending?: boolean;
  /** A spare whose interpreter has started (a warm one). */
  warm?: boolean;
}

/** Most sessions remembered as having lost their runtime, to tell them so at their next run. */
const MAX_REMEMBERED = 4096;

/** What a session whose idle runtime was stopped for a waiting session is told at its next run. */
const waitedNotice = (session: string) =>
  `session ${quote(session)} was idle while another session waited for a runtime, so its Python runtime was stopped: its globals, imports and installed packages were lost (a session keeps its runtime while it runs and for poolGraceMs after; poolSize sets how many run at once).`;

export class SessionRuntimes {
  private readonly members = new Set<Member>();
  private readonly sessions = new Map<string, Member>();
  private readonly spares: Member[] = [];
  /** Sessions whose runtime was stopped while idle, or that ended -> what to tell them. */
  private readonly lost = new Map<string, string>();
  private handler: { h: ToolCallHandler | undefined; observe?: (call: BridgeCall) => void } | undefined;
  private readonly queue: PoolQueue<Member>;
  private disposed = false;
  /** Runs finished on session runtimes (the shared runtime counts its own). */
  runs = 0;

  constructor(
    private readonly o: ResolvedPoolOptions,
    /** Makes one runtime (reporting runs to the pool's host). */
    private readonly create: () => RuntimeCore,
    private readonly modules: PoolModules,
    /** The pool's state changed. */
    private readonly changed: () => void,
  ) {
    this.queue = new PoolQueue<Member>({ size: o.size, queueLimit: o.queueLimit }, changed);
  }

  /** The pool's state, for `python:pool` and `getState`. */
  state(): PythonPoolState {
    const members = [...this.members];
    return {
      size: this.o.size,
      workers: members.length,
      spares: this.spares.filter((m) => m.warm).length,
      busy: members.filter((m) => m.inflight > 0).length,
      sessions: this.sessions.size,
      queued: this.queue.length,
      queueLimit: this.o.queueLimit,
      runs: this.runs,
    };
  }

  /** Every runtime, with the session it serves (none: a spare). */
  runtimes(): [RuntimeCore, string | undefined][] {
    return [...this.members].map((m) => [m.rt, m.session]);
  }

  /** The runtime serving `session`: bound to it, or still finishing its run after the session ended. */
  serving(session: string): Member | undefined {
    return this.sessions.get(session) ?? [...this.members].find((m) => m.session === session);
  }

  /** The runtime bound to `session`, if any. */
  bound(session: string): Member | undefined {
    return this.sessions.get(session);
  }

  /** Sets the tool-call handler of every runtime, now and later. */
  setHandler(h: ToolCallHandler | undefined, observe?: (call: BridgeCall) => void): void {
    this.handler = observe ? { h, observe } : { h };
    for (const m of this.members) this.connect(m);
  }

  /** The session's runtime, taken for one operation; or why there is none. */
  acquire(session: string, waitMs: number, signal?: AbortSignal): Member | Refusal | Promise<Member | Refusal> {
    const problem = nameProblem(session);
    if (problem) return invalidSession(session, problem);
    if (this.disposed) return poolDisposed();
    const bound = this.sessions.get(session);
    if (bound) return this.take(bound);
    // Sessions already waiting go first.
    if (!this.queue.length && this.room()) return this.take(this.bindNew(session));
    return this.queue.wait(session, waitMs, signal);
  }

  /** One operation of `m`'s session ended. */
  release(m: Member): void {
    m.inflight--;
    if (m.inflight === 0 && this.members.has(m)) {
      m.idleSince = performance.now();
      if (m.ending || this.disposed) this.stop(m);
      else {
        m.graceUntil = m.idleSince + this.o.graceMs;
        m.timer = setTimeout(() => this.graceOver(m), timerMs(this.o.graceMs));
      }
    }
    this.changed();
  }

  /** Ends `session`: its runtime stops (once what is under way finishes); its next run is told. */
  end(session: string): void {
    const m = this.sessions.get(session);
    if (!m) return;
    // A session name used again (an agent run's follow-up) learns that its globals are gone.
    this.remember(session, `session ${quote(session)} ended before this run, so its Python runtime was stopped: its globals, imports and installed packages were lost.`);
    this.sessions.delete(session);
    if (m.inflight > 0) m.ending = true;
    else this.stop(m);
  }

  /** Stops every runtime (the caller disposes the shared one); waiting runs fail. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.queue.refuseAll(disposedWhileWaiting());
    const all = [...this.members];
    for (const m of all) clearTimeout(m.timer);
    this.members.clear();
    this.sessions.clear();
    this.spares.length = 0;
    await Promise.all(all.map((m) => m.rt.dispose().catch(() => undefined)));
  }

  private spawn(): Member {
    const m: Member = { rt: this.create(), inflight: 0, calls: 0, idleSince: performance.now(), graceUntil: 0 };
    this.connect(m);
    this.members.add(m);
    return m;
  }

  /**
   * Gives `m` the tool-call handler, telling it the session `m` serves. While its Python waits in
   * `call_tool`, `m` does not count against `poolSize`: the tool it waits for may need a runtime.
   */
  private connect(m: Member): void {
    const h = this.handler?.h;
    m.rt.setToolCallHandler(
      h &&
        (async (name, args, instance) => {
          m.calls++;
          if (this.queue.length) this.pump();
          try {
            return await h(name, args, instance, m.session);
          } finally {
            m.calls--;
          }
        }),
      this.handler?.observe,
    );
  }

  /** Runtimes holding a session that count against `poolSize`. */
  private holding(): number {
    let n = 0;
    for (const m of this.members) if (m.session !== undefined && m.calls === 0) n++;
    return n;
  }

  /** Stops `m` and forgets it, without serving the queue (see {@link stop}). */
  private drop(m: Member): void {
    clearTimeout(m.timer);
    this.members.delete(m);
    if (m.session !== undefined && this.sessions.get(m.session) === m) this.sessions.delete(m.session);
    const i = this.spares.indexOf(m);
    if (i >= 0) this.spares.splice(i, 1);
    this.modules.forget(m.rt);
    void m.rt.dispose().catch(() => undefined);
    this.changed();
  }

  /** Stops `m`; the first waiting session may get a runtime in its place. */
  private stop(m: Member): void {
    this.drop(m);
    this.pump();
  }

  /** Keeps spares started, up to `poolSpares` (once sessions are used). */
  private replenish(): void {
    while (!this.disposed && this.spares.length < this.o.spares) {
      const m = this.spawn();
      this.spares.push(m);
      this.modules.send(m.rt, undefined);
      m.timer = setTimeout(() => this.stop(m), timerMs(this.o.idleMs));
      // A spare that cannot start is not kept (the next session starts its own, and says why).
      m.rt.init().then(
        () => {
          m.warm = true;
          this.changed();
        },
        () => this.spares.includes(m) && this.drop(m),
      );
    }
    this.changed();
  }

  /**
   * A runtime of `session`'s own: a warm spare if there is one, else a new one (from the start-up
   * snapshot). The next spare starts once this one is up, so it never slows this session's start.
   */
  private bindNew(session: string): Member {
    const spare = this.spares.shift();
    const m = spare ?? this.spawn();
    clearTimeout(m.timer);
    m.session = session;
    this.sessions.set(session, m);
    const told = this.lost.get(session);
    if (told !== undefined) {
      this.lost.delete(session);
      m.notice = told;
    }
    this.modules.send(m.rt, session);
    if (spare) this.replenish();
    else m.rt.init().then(() => this.replenish(), () => undefined);
    return m;
  }

  private take(m: Member): Member {
    m.inflight++;
    clearTimeout(m.timer);
    m.timer = undefined;
    this.changed();
    return m;
  }

  /** `m`'s grace is over: it goes now if a session waits or the pool holds too many, else after the idle time. */
  private graceOver(m: Member): void {
    if (m.inflight > 0 || !this.members.has(m)) return;
    if (this.queue.length || this.holding() > this.o.size) return this.reclaim(m, 'waited');
    m.timer = setTimeout(() => this.reclaim(m, 'idle'), timerMs(Math.max(0, this.o.idleMs - this.o.graceMs)));
  }

  /** Stops an idle session's runtime; the session is told at its next run. */
  private reclaim(m: Member, why: 'idle' | 'waited'): void {
    const session = m.session;
    if (session === undefined || m.inflight > 0) return;
    this.remember(
      session,
      why === 'idle'
        ? `session ${quote(session)} ran nothing for ${this.o.idleMs} ms, so its Python runtime was stopped: its globals, imports and installed packages were lost (poolIdleMs sets how long an idle session keeps its runtime).`
        : waitedNotice(session),
    );
    this.stop(m);
  }

  /** What to tell `session` at its next run (the oldest such notes are forgotten first). */
  private remember(session: string, notice: string): void {
    this.lost.delete(session);
    if (this.lost.size >= MAX_REMEMBERED) this.lost.delete(this.lost.keys().next().value!);
    this.lost.set(session, notice);
  }

  /** The idle session runtime to stop for a waiting session: past its grace, idle longest. */
  private reclaimable(): Member | undefined {
    const now = performance.now();
    let pick: Member | undefined;
    for (const m of this.members) {
      if (m.session === undefined || m.inflight > 0 || m.calls > 0 || m.ending || now < m.graceUntil) continue;
      if (!pick || m.idleSince < pick.idleSince) pick = m;
    }
    return pick;
  }

  /** Whether a session that has no runtime can get one now (stopping an idle one past its grace if need be). */
  private room(): boolean {
    if (this.holding() < this.o.size) return true;
    const idle = this.reclaimable();
    if (!idle) return false;
    this.remember(idle.session!, waitedNotice(idle.session!));
    this.drop(idle);
    return true;
  }

  /** Serves waiting sessions, in order, while the pool has room. */
  private pump(): void {
    while (!this.disposed && this.queue.length && this.room()) {
      const waiters = this.queue.takeFirst();
      const m = this.bindNew(waiters[0]!.session);
      for (const w of waiters) w.grant(this.take(m));
    }
  }
}
