/**
 * Keeps a thread's event loop busy for a moment, so that a message it expects soon is handled
 * without the thread going to sleep first.
 *
 * Why: a thread asleep in its event loop must be woken by the kernel when a message arrives, and
 * on virtual machines that wake-up costs tens to hundreds of microseconds — more than a small
 * Python run. Right after answering a request the worker usually gets the next one within
 * microseconds, and right after sending one the host usually gets the answer as fast: spinning
 * the loop (one empty task after another, so messages and I/O still go through) for a couple of
 * milliseconds finds them awake. It stops by itself, and costs nothing until the next `hold`.
 *
 * Spinning only pays while the other thread has a core to answer on. When the machine is
 * oversubscribed, two threads spinning in turn starve each other (each waits for the other's
 * window to end), so a window that ends without what it waited for turns spinning off for
 * `backoffMs`: under steady contention it costs one window in every `backoffMs`, and the threads
 * sleep and wake as they would without it.
 */

/** Schedules `fn` as a new task as soon as possible (not a microtask: the loop must breathe). */
export type Schedule = (fn: () => void) => void;

/** The fastest task scheduler here: `setImmediate` in Node, a MessageChannel task in browsers. */
export function taskScheduler(): Schedule {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
  if (typeof g.setImmediate === 'function') return (fn) => void g.setImmediate!(fn);
  // Browsers: setTimeout(0) is clamped to 4 ms once nested; a MessageChannel task is not.
  const channel = new MessageChannel();
  let queued: (() => void)[] = [];
  channel.port1.onmessage = () => {
    const run = queued;
    queued = [];
    for (const fn of run) fn();
  };
  return (fn) => {
    queued.push(fn);
    if (queued.length === 1) channel.port2.postMessage(null);
  };
}

/** Spins its thread's event loop for `windowMs` after each {@link LoopSpinner.hold}. */
export class LoopSpinner {
  private readonly schedule: Schedule;
  private readonly backoffMs: number;
  private until = 0;
  private running = false;
  /** When a window last ended without a `release` (what it waited for did not come). */
  private missedAt = -Infinity;

  /**
   * `windowMs` 0 (or less) turns spinning off. After a window that ends unanswered, `hold` does
   * nothing for `backoffMs`. Default: 25 windows.
   */
  constructor(
    private readonly windowMs: number,
    backoffMs?: number,
  ) {
    this.schedule = taskScheduler();
    this.backoffMs = backoffMs ?? 25 * windowMs;
  }

  /** Keeps the loop busy for the next `windowMs` (from now), unless spinning is backing off. */
  hold(): void {
    if (this.windowMs <= 0) return;
    const now = performance.now();
    if (now - this.missedAt < this.backoffMs) return;
    this.until = now + this.windowMs;
    if (this.running) return;
    this.running = true;
    this.schedule(this.tick);
  }

  /** What the spinning waited for has come: stop at once (until the next `hold`). */
  release(): void {
    this.until = 0;
  }

  /** Whether the loop is being kept busy now. */
  get spinning(): boolean {
    return this.running;
  }

  private readonly tick = (): void => {
    const now = performance.now();
    if (now < this.until) return this.schedule(this.tick);
    this.running = false;
    // Ended by time, not by `release`: nothing came while spinning.
    if (this.until !== 0) this.missedAt = now;
  };
}
