import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { EventBus, EventRecord, EventScope } from '../kernel/event-bus.ts';
import type { ArmatureEventType } from '../kernel/events.ts';

/**
 * Connects a Lit element to the bus: subscribes to `types` when the host connects, replays the
 * bus history for those types first (so a widget that mounts late shows recent activity), calls
 * `onEvent` for each event and asks the host to render. Every subscription is disposed when the
 * host disconnects.
 */
export class BusController<K extends ArmatureEventType> implements ReactiveController {
  private scope: EventScope | undefined;

  constructor(
    private readonly host: ReactiveControllerHost & { readonly localName?: string },
    private readonly getBus: () => EventBus | undefined,
    private readonly types: readonly K[],
    private readonly onEvent: (record: EventRecord<K>) => void,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connect();
  }

  hostDisconnected(): void {
    this.scope?.dispose();
    this.scope = undefined;
  }

  /** (Re)subscribes, e.g. after the host was given its bus. Idempotent. */
  connect(): void {
    const bus = this.getBus();
    if (!bus || this.scope) return;
    this.scope = bus.scope(this.host.localName ?? 'widget');
    for (const r of bus.history(this.types)) this.onEvent(r);
    for (const t of this.types) {
      this.scope.on(t, (_p, record) => {
        this.onEvent(record as EventRecord<K>);
        this.host.requestUpdate();
      });
    }
    this.host.requestUpdate();
  }

  /** Live subscriptions held (0 once disconnected). */
  get subscriptionCount(): number {
    return this.scope?.subscriptionCount ?? 0;
  }
}
