import { describeError } from '../errors.ts';
import { checkStatusSnapshot, type StatusSnapshot } from '../status-snapshot.ts';

/** Where a module's snapshot comes from: its own `status()`, or (for a part) its upgrade's `partStatus(id)`. */
export type StatusSource = () => unknown;

/** Options of {@link StatusBoard}. */
export interface StatusBoardOptions {
  /** Publishes a snapshot (the loader emits `module:status`). */
  publish(id: string, status: StatusSnapshot): void;
  /** The source of `id`'s snapshot, or undefined when it has none (yet). */
  sourceOf(id: string): StatusSource | undefined;
  /** Shortest time between two `module:status` of one module, in ms. Default: 100. */
  intervalMs?: number;
  /** Where a snapshot that cannot be published is reported (once per module and problem). Default: `console.warn`. */
  warn?: (message: string) => void;
}

interface Slot {
  /** When its last snapshot went out (performance.now()). */
  lastAt: number;
  timer?: ReturnType<typeof setTimeout>;
  /** The last snapshot that passed the checks. */
  good?: StatusSnapshot;
  /** The last problem reported, so a snapshot broken the same way is reported once. */
  problem?: string;
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * The modules' status snapshots. A module says it changed (`changed(id)`); the board reads its
 * snapshot and publishes it, at most once per `intervalMs` for each module: the first change after
 * a quiet spell goes out at once (in a microtask, after the code that changed it), later ones are
 * coalesced into one on the trailing edge. A snapshot that throws or breaks the rules
 * (`checkStatusSnapshot`) is reported and not published; the last good one stays.
 */
export class StatusBoard {
  private readonly slots = new Map<string, Slot>();
  private readonly intervalMs: number;
  private readonly warn: (message: string) => void;
  private disposed = false;

  constructor(private readonly options: StatusBoardOptions) {
    this.intervalMs = options.intervalMs ?? 100;
    this.warn = options.warn ?? ((m) => console.warn(m));
  }

  private slot(id: string): Slot {
    let s = this.slots.get(id);
    if (!s) this.slots.set(id, (s = { lastAt: -Infinity }));
    return s;
  }

  /** Module (or part) `id` changed: its snapshot goes out now or on the trailing edge of the interval. */
  changed(id: string): void {
    if (this.disposed) return;
    const s = this.slot(id);
    if (s.timer !== undefined) return;
    const wait = Math.max(0, s.lastAt + this.intervalMs - now());
    const fire = () => {
      s.timer = undefined;
      if (this.disposed || this.slots.get(id) !== s) return;
      s.lastAt = now();
      // Only a snapshot read now goes out: a broken one leaves the last good one in place.
      const { status } = this.readNow(id);
      if (status) this.options.publish(id, status);
    };
    if (wait === 0) {
      // Marked busy until the microtask runs, so changes made in the same task join this one.
      s.timer = 0 as unknown as ReturnType<typeof setTimeout>;
      queueMicrotask(fire);
      return;
    }
    s.timer = setTimeout(fire, wait);
    (s.timer as { unref?: () => void }).unref?.();
  }

  /** The current snapshot of `id` (read now), or the last good one when it cannot be read; undefined when it has none. */
  read(id: string): StatusSnapshot | undefined {
    const r = this.readNow(id);
    return r.broken ? this.slots.get(id)?.good : r.status;
  }

  /** The snapshot of `id` read and checked now; `broken` when it threw or broke the rules (reported). */
  private readNow(id: string): { status?: StatusSnapshot; broken?: true } {
    const source = this.options.sourceOf(id);
    if (!source) return {};
    const s = this.slot(id);
    try {
      const raw = source();
      // A module (or part) with nothing to show now, e.g. an agent-made upgrade that stopped.
      s.good = raw === undefined ? undefined : checkStatusSnapshot(id, raw);
      s.problem = undefined;
      return s.good ? { status: s.good } : {};
    } catch (e) {
      const problem = describeError(e);
      if (problem !== s.problem) {
        s.problem = problem;
        const hint = (e as { hint?: string }).hint;
        this.warn(`[status] ${id}'s status snapshot was not published: ${problem}${hint ? ` (${hint})` : ''}; its card keeps the last good one.`);
      }
      return { broken: true };
    }
  }

  /** Forgets `id` (its module was disposed): nothing more goes out for it. */
  forget(id: string): void {
    const s = this.slots.get(id);
    if (s?.timer) clearTimeout(s.timer);
    this.slots.delete(id);
  }

  /** Stops every pending snapshot. */
  dispose(): void {
    this.disposed = true;
    for (const s of this.slots.values()) if (s.timer) clearTimeout(s.timer);
    this.slots.clear();
  }
}
