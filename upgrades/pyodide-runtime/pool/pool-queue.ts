/**
 * The runs (installs, syncs) waiting for a runtime of the pool: one FIFO queue, served in order.
 * A waiting run gives up with `RUNTIME_BUSY` after its own timeout and leaves at once when its
 * caller cancels it; past the queue limit a run is refused without waiting.
 */
import { timerMs } from '../../../src/kernel/bounded.ts';
import { cancelled, queueFull, waitedTooLong, type Refusal } from './pool-refusals.ts';

/** A run waiting for a runtime. */
export interface Waiter<M> {
  session: string;
  /** Ends the wait: with the runtime, or with why there is none. */
  grant(r: M | Refusal): void;
}

export class PoolQueue<M> {
  private readonly waiters: Waiter<M>[] = [];

  constructor(
    private readonly limits: { size: number; queueLimit: number },
    /** The queue changed (for the pool's state). */
    private readonly changed: () => void,
  ) {}

  get length(): number {
    return this.waiters.length;
  }

  /** The first waiting session, if any. */
  first(): string | undefined {
    return this.waiters[0]?.session;
  }

  /**
   * Waits in line for a runtime for `session`, at most `waitMs`; or why it may not wait (the
   * queue is full, the caller cancelled already).
   */
  wait(session: string, waitMs: number, signal?: AbortSignal): Refusal | Promise<M | Refusal> {
    if (this.waiters.length >= this.limits.queueLimit) return queueFull(session, this.limits.size, this.waiters.length, this.limits.queueLimit);
    if (signal?.aborted) return cancelled();
    return new Promise((resolve) => {
      const done = (r: M | Refusal) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const leave = (r: Refusal) => {
        const i = this.waiters.indexOf(w);
        if (i < 0) return; // granted meanwhile
        this.waiters.splice(i, 1);
        this.changed();
        done(r);
      };
      const onAbort = () => leave(cancelled());
      const timer = setTimeout(() => leave(waitedTooLong(session, this.limits.size, waitMs)), timerMs(waitMs));
      const w: Waiter<M> = { session, grant: done };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
      this.changed();
    });
  }

  /** Takes the first waiter and every other waiter of the same session (they share its runtime). */
  takeFirst(): Waiter<M>[] {
    const first = this.waiters.shift();
    if (!first) return [];
    const taken = [first];
    for (let i = 0; i < this.waiters.length; ) {
      if (this.waiters[i]!.session === first.session) taken.push(...this.waiters.splice(i, 1));
      else i++;
    }
    this.changed();
    return taken;
  }

  /** Ends every wait with `r` (the pool was disposed). */
  refuseAll(r: Refusal): void {
    for (const w of this.waiters.splice(0)) w.grant(r);
  }
}
