/**
 * The interrupt of one run, and the decision to replace a worker whose Python does not stop.
 *
 * The buffer holds Pyodide's signal word and the worker's "user code is running" word
 * (`protocol/interrupt-buffer.ts`), so the host can tell, from the buffer alone, a Python that cannot stop (the signal stays unread:
 * a loop inside C, a long sleep) from one that is merely slow to get a turn on a loaded machine
 * (the signal was read, or the run is over and its answer on the way). A clock alone cannot: under
 * load the thread that decides gets its turn late, finds the grace long past, and would replace a
 * worker whose run had already ended — and with it the globals a timeout promises to keep.
 */
import { INTERRUPT_RUNNING, INTERRUPT_SIGNAL } from '../protocol/interrupt-buffer.ts';

/** Fewest signals Python may read without stopping before it counts as ignoring them (a lost one is read too). */
const MIN_IGNORED = 5;

/** What a look at the buffer concludes. */
export type InterruptVerdict = 'wait' | 'stop' | 'replace';

/**
 * Sends SIGINT and judges, one look per `resignalMs`, whether Python is stopping:
 * - the run is over: stop looking (its answer is on the way);
 * - the signal was read but the run goes on: send it again (single signals get lost, or the code
 *   caught the KeyboardInterrupt); after `max(5, grace / resignalMs)` such reads, replace;
 * - the signal is still unread after both `graceMs` and `grace / resignalMs` looks: replace.
 *   Both, because a look that comes late (this thread starved) must not count the wait twice.
 */
export class InterruptWatch {
  private sentAt = 0;
  private unreadLooks = 0;
  private ignored = 0;
  private readonly looks: number;
  private readonly maxIgnored: number;

  constructor(
    private readonly buffer: Int32Array,
    private readonly graceMs: number,
    resignalMs: number,
  ) {
    this.looks = Math.max(1, Math.ceil(graceMs / resignalMs));
    this.maxIgnored = Math.max(MIN_IGNORED, this.looks);
  }

  /** Writes the signal (again) at time `now`. */
  send(now: number): void {
    this.sentAt = now;
    this.unreadLooks = 0;
    Atomics.store(this.buffer, INTERRUPT_SIGNAL, 2);
  }

  /** One look at time `now`: what to do. */
  tick(now: number): InterruptVerdict {
    if (Atomics.load(this.buffer, INTERRUPT_RUNNING) === 0) return 'stop';
    if (Atomics.load(this.buffer, INTERRUPT_SIGNAL) === 0) {
      if (++this.ignored >= this.maxIgnored) return 'replace';
      this.send(now);
      return 'wait';
    }
    this.unreadLooks++;
    return this.unreadLooks >= this.looks && now - this.sentAt >= this.graceMs ? 'replace' : 'wait';
  }
}
