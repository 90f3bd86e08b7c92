import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** "just now", "42s ago", "5m ago", "3h ago", "2d ago" for `then` relative to `now` (ms). */
export function formatRelative(then: number | undefined, now = Date.now()): string {
  if (then === undefined) return 'never';
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/**
 * Re-renders its host once a second while connected, so relative-time labels stay true without
 * any polling of data. The timer stops when the host disconnects.
 */
export class RelativeTimeController implements ReactiveController {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly host: ReactiveControllerHost, private readonly intervalMs = 1000) {
    host.addController(this);
  }

  hostConnected(): void {
    this.timer ??= setInterval(() => this.host.requestUpdate(), this.intervalMs);
  }

  hostDisconnected(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Whether the timer is running (for tests). */
  get running(): boolean {
    return this.timer !== undefined;
  }
}
