/**
 * The Python modules across the runtimes of a pool: the files every runtime gets (the generated
 * `tools.*` modules), and those only the runtime of one session gets (an agent-made tool's own
 * code, given to nothing else). Every runtime takes its files in its own turn (a busy one after
 * its run under way), and an operation on a runtime waits for that runtime's update first, so it
 * runs with the modules of when it was asked for and never waits for another runtime's run.
 */
import type { RuntimeCore } from '../host/runtime-types.ts';

type ModuleFiles = readonly { path: string; source: string }[];

export class PoolModules {
  /** The files of every runtime; undefined until the first {@link setShared}. */
  private shared: ModuleFiles | undefined;
  /** Files of one session's runtime only, by session. */
  private readonly own = new Map<string, ModuleFiles>();
  /** The shared files joined with a session's own, kept while both stay the same (runtimes skip files they already have by identity). */
  private readonly joined = new Map<string, { shared: ModuleFiles | undefined; own: ModuleFiles; files: ModuleFiles }>();
  /** What each runtime was last given. */
  private readonly given = new Map<RuntimeCore, ModuleFiles>();
  /** Each runtime's latest update while it is under way, or after it failed. */
  private readonly pending = new Map<RuntimeCore, Promise<void>>();

  /** The files a runtime serving `session` (none: a spare, or the shared runtime) has. */
  filesFor(session: string | undefined): ModuleFiles | undefined {
    const own = session === undefined ? undefined : this.own.get(session);
    if (!own) return this.shared;
    let j = this.joined.get(session!);
    if (!j || j.shared !== this.shared || j.own !== own) this.joined.set(session!, (j = { shared: this.shared, own, files: [...(this.shared ?? []), ...own] }));
    return j.files;
  }

  /** Makes `files` every runtime's, and sends each of `runtimes` (with the session it serves) its files. */
  setShared(files: ModuleFiles, runtimes: Iterable<[RuntimeCore, string | undefined]>): void {
    this.shared = files;
    for (const [rt, session] of runtimes) this.send(rt, session);
  }

  /** Makes `files` the own files of `session`'s runtime (none: forgets them). The caller sends them to that runtime. */
  setOwn(session: string, files: ModuleFiles | undefined): void {
    if (files?.length) this.own.set(session, files);
    else this.own.delete(session);
    this.joined.delete(session);
  }

  /** Whether `session` has files of its own. */
  hasOwn(session: string): boolean {
    return this.own.has(session);
  }

  /** Sends `rt` the files of a runtime serving `session`, if they are not what it was last given. This does not start it. */
  send(rt: RuntimeCore, session: string | undefined): void {
    const files = this.filesFor(session);
    if (!files || this.given.get(rt) === files) return;
    this.given.set(rt, files);
    const p = rt.setPythonModules(files as { path: string; source: string }[]);
    this.pending.set(rt, p);
    p.then(
      () => this.pending.get(rt) === p && this.pending.delete(rt),
      () => undefined,
    );
  }

  /** Whether `rt` has an update under way (or one that failed). */
  isPending(rt: RuntimeCore): boolean {
    return this.pending.has(rt);
  }

  /**
   * Waits for `rt`'s update, if one is under way. An update that failed (its child stopped
   * meanwhile, say) is tried once more with the files it was last given; a second failure rejects.
   */
  async updated(rt: RuntimeCore): Promise<void> {
    // The latest update: a newer one may have come while waiting for an older one.
    for (let p = this.pending.get(rt); p; p = this.pending.get(rt)) {
      try {
        await p;
      } catch {
        const files = this.given.get(rt);
        if (this.pending.get(rt) === p && files) await rt.setPythonModules(files as { path: string; source: string }[]);
      }
      if (this.pending.get(rt) === p) this.pending.delete(rt);
    }
  }

  /** Forgets `rt` (it stopped). */
  forget(rt: RuntimeCore): void {
    this.pending.delete(rt);
    this.given.delete(rt);
  }
}
