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
  private until = 0;
  private running = false;

  /** `windowMs` 0 (or less) turns spinning off. */
  constructor(private readonly windowMs: number) {
    this.schedule = taskScheduler();
  }

  /** Keeps the loop busy for the next `windowMs` (from now). */
  hold(): void {
    if (this.windowMs <= 0) return;
    this.until = performance.now() + this.windowMs;
    if (this.running) return;
    this.running = true;
    this.schedule(this.tick);
  }

  /** Stops at once (until the next `hold`). */
  release(): void {
    this.until = 0;
  }

  /** Whether the loop is being kept busy now. */
  get spinning(): boolean {
    return this.running;
  }

  private readonly tick = (): void => {
    if (performance.now() < this.until) this.schedule(this.tick);
    else this.running = false;
  };
}
