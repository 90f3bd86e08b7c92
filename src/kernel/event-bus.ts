import mittImport, { type Emitter, type EventType } from 'mitt';
import type { ArmatureEvents, ArmatureEventType } from './events.ts';
import { DisposableStore, toDisposable, type Disposable } from './lifecycle.ts';

/** One recorded event. */
export interface EventRecord<K extends ArmatureEventType = ArmatureEventType> {
  type: K;
  payload: ArmatureEvents[K];
  /** `Date.now()` when emitted. */
  at: number;
  /** Monotonic sequence number, unique per bus. */
  seq: number;
}

/** Handler for one event type. */
export type EventHandler<K extends ArmatureEventType> = (payload: ArmatureEvents[K], record: EventRecord<K>) => void;

/** Options of {@link createEventBus}. */
export interface EventBusOptions {
  /** How many recent events to keep for late subscribers. Default: 500. */
  historySize?: number;
}

/** Subscribing and emitting; implemented by the bus and by each scope. */
export interface EventSource {
  /** Subscribes to `type`; the returned disposable unsubscribes. */
  on<K extends ArmatureEventType>(type: K, handler: EventHandler<K>): Disposable;
  /** Subscribes to every event. */
  onAny(handler: (record: EventRecord) => void): Disposable;
  /** Emits `type` with `payload` to every subscriber, synchronously. */
  emit<K extends ArmatureEventType>(type: K, payload: ArmatureEvents[K]): void;
  /** Recent events, oldest first, optionally only of the given types. */
  history<K extends ArmatureEventType>(types?: readonly K[]): EventRecord<K>[];
}

/** A view of the bus whose subscriptions all end when the scope is disposed. */
export interface EventScope extends EventSource, Disposable {
  /** Number of live subscriptions held by this scope. */
  readonly subscriptionCount: number;
}

/** The system's typed event bus (mitt underneath) with a bounded history. */
export interface EventBus extends EventSource {
  /** A scope owned by one module or widget. */
  scope(owner: string): EventScope;
  /** Total live handlers across all event types (for leak checks). */
  listenerCount(): number;
  /** Changes how many recent events are kept. */
  setHistorySize(size: number): void;
}

/**
 * mitt's declarations describe a CommonJS module while Node and bundlers load its ES build, so under
 * `module: nodenext` TypeScript types the default import as the module object `{ default: mitt }`;
 * at run time it is the function. Taking `.default` when present satisfies both readings.
 */
const mitt = ((mittImport as { default?: unknown }).default ?? mittImport) as <E extends Record<EventType, unknown>>() => Emitter<E>;

type MittEvents = { [K in ArmatureEventType]: EventRecord<K> };

/** Creates the typed event bus. */
export function createEventBus(options: EventBusOptions = {}): EventBus {
  const emitter: Emitter<MittEvents> = mitt<MittEvents>();
  let limit = checkSize(options.historySize ?? 500);
  // A ring buffer keeps emit O(1) however long the history is.
  let ring: (EventRecord | undefined)[] = new Array(limit);
  let next = 0;
  let count = 0;
  let seq = 0;

  const bus: EventBus = {
    on(type, handler) {
      const h = (record: EventRecord<typeof type>) => handler(record.payload, record);
      emitter.on(type, h as never);
      return toDisposable(() => emitter.off(type, h as never));
    },
    onAny(handler) {
      const h = (_type: unknown, record: unknown) => handler(record as EventRecord);
      emitter.on('*', h as never);
      return toDisposable(() => emitter.off('*', h as never));
    },
    emit(type, payload) {
      const record = { type, payload, at: Date.now(), seq: ++seq } as EventRecord<typeof type>;
      if (limit > 0) {
        ring[next] = record as EventRecord;
        next = (next + 1) % limit;
        count = Math.min(count + 1, limit);
      }
      emitter.emit(type, record as never);
    },
    history(types) {
      const out: EventRecord[] = [];
      for (let i = 0; i < count; i++) {
        const r = ring[(next - count + i + limit) % limit]!;
        if (!types || (types as readonly string[]).includes(r.type)) out.push(r);
      }
      return out as never;
    },
    scope(owner) {
      return createScope(bus, owner);
    },
    listenerCount() {
      let n = 0;
      for (const handlers of emitter.all.values()) n += handlers?.length ?? 0;
      return n;
    },
    setHistorySize(size) {
      const newLimit = checkSize(size);
      const kept = newLimit === 0 ? [] : bus.history().slice(-newLimit);
      limit = newLimit;
      ring = new Array(limit);
      count = 0;
      next = 0;
      for (const r of kept) {
        ring[next] = r;
        next = (next + 1) % limit;
        count++;
      }
    },
  };
  return bus;
}

function checkSize(size: number): number {
  if (!Number.isInteger(size) || size < 0) {
    throw new RangeError(`[event-bus] historySize must be a whole number >= 0, got ${JSON.stringify(size)}`);
  }
  return size;
}

function createScope(bus: EventBus, owner: string): EventScope {
  const subs = new DisposableStore();
  let disposed = false;
  const track = (d: Disposable): Disposable => {
    if (disposed) {
      d.dispose();
      return d;
    }
    const wrapped = toDisposable(() => {
      subs.delete(wrapped);
      d.dispose();
    });
    return subs.add(wrapped);
  };
  return {
    on: (type, handler) => track(bus.on(type, handler)),
    onAny: (handler) => track(bus.onAny(handler)),
    emit: (type, payload) => {
      if (disposed) throw new Error(`[event-bus] ${owner} emitted ${type} after its scope was disposed`);
      bus.emit(type, payload);
    },
    history: (types) => bus.history(types),
    get subscriptionCount() {
      return subs.size;
    },
    dispose() {
      disposed = true;
      subs.dispose();
    },
  };
}
