import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { EventRecord, EventSource } from '../kernel/event-bus.ts';
import type { ArmatureEventType } from '../kernel/events.ts';
import { DisposableStore } from '../kernel/lifecycle.ts';

/** What a controller reads events from: a view's `events` (or a bus). */
export type EventFeed = Pick<EventSource, 'on' | 'history'>;

/**
 * Connects a Lit element to a view's events: subscribes to `types` when the host connects,
 * replays the recent history of those types first (so a widget that mounts late shows recent
 * activity), calls `onEvent` for each event and asks the host to render. Every subscription is
 * disposed when the host disconnects.
 */
export class BusController<K extends ArmatureEventType> implements ReactiveController {
  private subscriptions: DisposableStore | undefined;
  private feed: EventFeed | undefined;

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
          this.host.requestUpdate();
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
