/**
 * The pool's `python:pool` event: its state (workers, busy ones, sessions, the queue) each time it
 * changes, at most once per {@link POOL_EVENT_MS} and then with the state of that moment. Under a
 * burst of runs the state changes at every run's start and end, and an event each time would push
 * everything else out of the event history.
 */
import type { PythonPoolState } from '../../../src/contracts/python-events.ts';

/** Least time between two `python:pool` events, in ms. */
export const POOL_EVENT_MS = 100;

export class PoolEvents {
  private last = '';
  private lastEmitAt = -Infinity;
  /** The event waiting for its turn. */
  private trailing: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly state: () => PythonPoolState,
    private readonly emit: (state: PythonPoolState) => void,
  ) {}

  /** The state changed: told at once, or when its turn comes with the state of then. */
  changed(): void {
    if (this.trailing || this.stopped) return;
    const wait = this.lastEmitAt + POOL_EVENT_MS - performance.now();
    if (wait <= 0) return this.publish();
    this.trailing = setTimeout(this.publish, wait);
  }

  /** No more events (the pool was disposed). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.trailing);
  }

  private readonly publish = (): void => {
    this.trailing = undefined;
    const s = this.state();
    const key = JSON.stringify(s);
    if (key === this.last) return;
    this.last = key;
    this.lastEmitAt = performance.now();
    this.emit(s);
  };
}
