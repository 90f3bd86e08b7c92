/**
 * Other processes' runs, for the Agent's `list_runs` and `read_run` (Node, with a data folder):
 * another process on the folder (`armature agent` in another terminal while this is `armature
 * mcp`, or the dashboard's server) writes its runs to the same store, which this system holds in
 * memory. Before answering, the store is read again — when another process lives, or ended since
 * the last read, so a system alone on its folder never pays for it — and each run is told apart by
 * its process: without an end in its transcript, running while that process lives, interrupted
 * once it died (judged as the dashboard judges processes: `Platform.processes`).
 */
import type { ProcessDirectory } from '../../src/kernel/journal/journal-layout.ts';
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

  /**
   * Reads the store again if another process may have written to it since it was last read, and
   * says which run goes on where: `active` are this system's runs. The processes' folders are read
   * once per call.
   */
  async look(active: readonly string[]): Promise<RunLiveness> {
    const processes = new Map(this.processes.list().map((p) => [p.id, p]));
    const since = this.readAt - TWO_BEATS_MS;
    const wrote = [...processes.values()].some((p) => p.id !== this.self && (p.state === 'live' || (p.endedAt ?? 0) >= since));
    if (wrote) {
      this.readAt = Date.now();
      await this.reload();
    }
    return {
      active: new Set(active),
      ...(this.self === undefined ? {} : { self: this.self }),
      processOf: (id) => processes.get(id),
    };
  }
}
