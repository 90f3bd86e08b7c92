/**
 * Other processes' runs, for the Agent's `list_runs` and `read_run` (Node, with a data folder):
 * another process on the folder (`armature agent` in another terminal while this is `armature
 * mcp`, or the dashboard's server) writes its runs to the same store, which this system holds in
 * memory. Before answering, the store is read again — when another process lives, or ended since
 * the last read, so a system alone on its folder never pays for it — and each run is told apart by
 * its process: without an end in its transcript, running while that process lives, interrupted
 * once it died (judged as the dashboard judges processes: `Platform.processes`).
 */
import type { ProcessDirectory, ProcessStatus } from '../../src/kernel/journal/journal-layout.ts';
import type { RunLiveness } from './transcript.ts';

/**
 * How long before the last read another process's end still calls for a read: a process that
 * crashed is known by its last heartbeat, touched every second, so it may have written up to a
 * beat after it (two, for the slack of a loaded machine).
 */
const TWO_BEATS_MS = 2_000;

/** The other processes of the Agent's data folder. */
export class RunsElsewhere {
  /** When the store was last read (ms since the epoch): at first, this process's start. */
  private readAt = performance.timeOrigin;

  /**
   * @param processes The processes on the data folder.
   * @param reload Reads the store again (the workspace's `reload`).
   * @param self This process's id on the folder, if known.
   */
  constructor(
    private readonly processes: ProcessDirectory,
    private readonly reload: () => Promise<unknown>,
    private readonly self?: string,
  ) {}

  /** Reads the store again if another process may have written to it since it was last read. */
  async catchUp(): Promise<void> {
    const since = this.readAt - TWO_BEATS_MS;
    const wrote = this.processes.list().some((p) => p.id !== this.self && (p.state === 'live' || (p.endedAt ?? 0) >= since));
    if (!wrote) return;
    this.readAt = Date.now();
    await this.reload();
  }

  /** The liveness of runs for one answer (each process's folder read at most once), with `active` the runs of this system. */
  liveness(active: readonly string[]): RunLiveness {
    const known = new Map<string, ProcessStatus | undefined>();
    return {
      active: new Set(active),
      ...(this.self === undefined ? {} : { self: this.self }),
      processOf: (id) => {
        if (!known.has(id)) known.set(id, this.processes.status(id));
        return known.get(id);
      },
    };
  }
}
