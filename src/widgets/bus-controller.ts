import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { EventRecord, EventSource } from '../kernel/event-bus.ts';
import type { ArmatureEventType } from '../kernel/events.ts';
import { DisposableStore } from '../kernel/lifecycle.ts';

/** What a controller reads events from: a view's `events` (or a bus). */
export type EventFeed = Pick<EventSource, 'on' | 'history'>;

/**
 * Connects a Lit element to a view's events: subscribes to `types` when the host connects,
 * replays the recent history of those types first (so a widget that mounts late shows recent
 * activity), calls `onEvent` for each event and asks the host to render — at most once per
 * animation frame: events that arrive one task each (a server's stream: 10,000 lines of output)
 * would otherwise render once each and starve the frames. Every subscription is disposed when the
 * host disconnects.
 */
export class BusController<K extends ArmatureEventType> implements ReactiveController {
  private subscriptions: DisposableStore | undefined;
  private feed: EventFeed | undefined;
  /** The animation frame a render waits for, if one does. */
  private frame: number | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly getEvents: () => EventFeed | undefined,
    private readonly types: readonly K[],
    private readonly onEvent: (record: EventRecord<K>) => void,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connect();
  }

  hostDisconnected(): void {
    this.subscriptions?.dispose();
    this.subscriptions = undefined;
    this.feed = undefined;
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.frame = undefined;
  }

  /** Asks the host to render on the next animation frame (at once where there are none). */
  private scheduleUpdate(): void {
    if (typeof requestAnimationFrame !== 'function') return this.host.requestUpdate();
    this.frame ??= requestAnimationFrame(() => {
      this.frame = undefined;
      this.host.requestUpdate();
    });
  }

  /** (Re)subscribes, e.g. after the host was given its view; a new feed replaces the old one. Idempotent. */
  connect(): void {
    const feed = this.getEvents();
    if (!feed || feed === this.feed) return;
    this.hostDisconnected();
    this.feed = feed;
    const subs = (this.subscriptions = new DisposableStore());
    for (const r of feed.history(this.types)) this.onEvent(r);
    for (const t of this.types) {
      subs.add(
        feed.on(t, (_p, record) => {
          this.onEvent(record as EventRecord<K>);
          this.scheduleUpdate();
        }),
      );
    }
    this.host.requestUpdate();
  }

  /** Live subscriptions held (0 once disconnected). */
  get subscriptionCount(): number {
    return this.subscriptions?.size ?? 0;
  }
}
