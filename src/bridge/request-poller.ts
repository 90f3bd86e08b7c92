/**
 * Watches a {@link SyncChannelHost}'s request slot for a short while after each answer.
 *
 * Why: a worker blocked in `call_tool` usually calls again within microseconds of its answer
 * (loops of calls), but a message to an idle main thread has to wake it, and on virtual machines
 * that wake-up dominates a small call (tens of microseconds, often more). Looking at the slot from
 * the event loop for `windowMs` after each answer finds the next request without any wake-up. The
 * loop yields between looks (`setImmediate` in Node, a MessageChannel task in browsers), so other
 * work and I/O go on; it stops by itself when no request came within the window, and then costs
 * nothing until the next answer.
 */
import { taskScheduler, type Schedule } from './loop-spinner.ts';
import type { SlotRequest, SyncChannelHost } from './sync-channel.ts';

/** Options of {@link RequestPoller}. */
export interface RequestPollerOptions {
  /** How long to keep looking after an answer, in ms; 0 turns polling off. Default: 2. */
  windowMs?: number;
}

export class RequestPoller {
  private readonly windowMs: number;
  private readonly schedule: Schedule;
  private until = 0;
  private running = false;
  private disposed = false;

  /**
   * `onRequest` gets every request this poller claims; call {@link watch} when answering it,
   * before the answer is written (the worker may ask again the moment it has the answer).
   */
  constructor(
    private readonly host: SyncChannelHost,
    private readonly onRequest: (request: SlotRequest) => void,
    options: RequestPollerOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 2;
    this.schedule = taskScheduler();
  }

  /** Looks at the slot for the next `windowMs` (from now). */
  watch(): void {
    if (this.disposed || this.windowMs <= 0) return;
    this.until = performance.now() + this.windowMs;
    if (this.running) return;
    this.running = true;
    this.host.setPolling(true);
    this.schedule(this.tick);
  }

  /** Stops looking for good; a request that arrived meanwhile is still handed over. */
  dispose(): void {
    this.disposed = true;
    if (this.running) this.pause();
  }

  private readonly tick = (): void => {
    if (!this.running) return;
    const request = this.host.takeRequest();
    if (request) {
      // The worker now waits for this answer and cannot ask again: stop until it is answered.
      this.pause();
      this.onRequest(request);
      return;
    }
    if (!this.disposed && performance.now() < this.until) this.schedule(this.tick);
    else this.pause();
  };

  private pause(): void {
    this.running = false;
    const late = this.host.setPolling(false);
    if (late) this.onRequest(late);
  }
}
