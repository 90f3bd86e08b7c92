/**
 * Keeps the dashboard server's system current with what other processes on its data folder write
 * to the shared workspace store: their agent runs' transcripts (Past runs, `list_runs`,
 * `read_run`) and their files (the Workspace card). The workspace holds its files in memory, so
 * it is told to read its store again (`WorkspaceApi.reload`) when another process's journal says
 * it wrote: a `workspace:*` or `agent:run-*` record, or its end (a crashed run's last lines).
 *
 * Why the journal and not a watch of the folder: the journal is already tailed for the page, so
 * this costs nothing while nobody writes; a recursive folder watch would cost a handle per folder
 * of the workspace, fire on this system's own writes too, and miss nothing the journal would
 * not tell (a process without a journal, `boot({ journal: false })`, is seen after a restart).
 * Reloads are coalesced: one at a time, at most one per {@link RELOAD_DELAY_MS}, and a reload lists
 * the store's metadata and reads only the files whose size or mtime changed.
 */
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { Disposable } from '../kernel/lifecycle.ts';

/** How long a burst of another process's writes is gathered before one reload. */
export const RELOAD_DELAY_MS = 100;

/** Records of another process after which the workspace store may hold something new. */
const WROTE = new Set(['workspace:written', 'workspace:deleted', 'agent:run-started', 'agent:run-finished']);

/** What the follower needs of the workspace (its contract lives with the upgrade, which src does not import). */
interface Reloadable {
  reload?(): Promise<unknown>;
}

/** Reloads the workspace of `sys` when told that another process wrote. */
export class StoreFollower implements Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private again = false;
  private disposed = false;

  constructor(private readonly sys: Pick<ArmatureSystem, 'resolve' | 'modules'>) {}

  /** Another process's record: reloads soon if it says that process wrote. */
  noticeRecord(type: string): void {
    if (WROTE.has(type)) this.schedule();
  }

  /** Another process ended: what it last wrote is on disk now. */
  noticeEnded(): void {
    this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.disposed || !this.sys.modules.some((m) => m.id === 'Workspace' && m.state === 'loaded')) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.running = true;
      void this.reload().finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
    }, RELOAD_DELAY_MS);
  }

  private async reload(): Promise<void> {
    try {
      const id: string = 'Workspace';
      await ((await this.sys.resolve(id)) as Reloadable).reload?.();
    } catch {
      // A store that cannot be read now (a folder being moved): the next write elsewhere tries again.
    }
  }
}
