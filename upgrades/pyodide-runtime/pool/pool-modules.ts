/**
 * The `tools.*` Python modules across the runtimes of a pool: every runtime takes the latest files
 * in its own turn (a busy one after its run under way), and an operation on a runtime waits for
 * that runtime's update first, so it runs with the modules of when it was asked for and never
 * waits for another runtime's run.
 */
import type { RuntimeCore } from '../host/runtime-types.ts';

type ModuleFiles = { path: string; source: string }[];

export class PoolModules {
  /** The latest files; undefined until the first {@link set}. */
  files: ModuleFiles | undefined;
  /** Each runtime's latest update while it is under way, or after it failed. */
  private readonly pending = new Map<RuntimeCore, Promise<void>>();

  /** Makes `files` the latest and sends them to each of `runtimes`. */
  set(files: ModuleFiles, runtimes: Iterable<RuntimeCore>): void {
    this.files = files;
    for (const rt of runtimes) this.send(rt);
  }

  /** Sends the latest files (if any) to `rt`, a runtime the pool just made: this does not start it. */
  send(rt: RuntimeCore): void {
    const files = this.files;
    if (!files) return;
    const p = rt.setPythonModules(files);
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
   * meanwhile, say) is tried once more with the latest files; a second failure rejects.
   */
  async updated(rt: RuntimeCore): Promise<void> {
    // The latest update: a newer one may have come while waiting for an older one.
    for (let p = this.pending.get(rt); p; p = this.pending.get(rt)) {
      try {
        await p;
      } catch {
        if (this.pending.get(rt) === p && this.files) await rt.setPythonModules(this.files);
      }
      if (this.pending.get(rt) === p) this.pending.delete(rt);
    }
  }

  /** Forgets `rt` (it stopped). */
  forget(rt: RuntimeCore): void {
    this.pending.delete(rt);
  }
}
