import mittImport, { type Emitter, type EventType } from 'mitt';
import { checkPayload, compileDeclarations, type CompiledDeclaration, type DeclaredEventRecord, type DeclaredEvents, type EventDeclaration } from './declared-events.ts';
import { ArmatureError, toErrorInfo } from './errors.ts';
import { KERNEL_EVENT_PREFIXES, type ArmatureEvents, type ArmatureEventType } from './events.ts';
import { DisposableStore, toDisposable, type Disposable } from './lifecycle.ts';

export type { DeclaredEventRecord, DeclaredEvents, EventDeclaration } from './declared-events.ts';

/** One recorded event. */
export interface EventRecord<K extends ArmatureEventType = ArmatureEventType> {
  type: K;
  payload: ArmatureEvents[K];
  /** `Date.now()` when emitted. */
  at: number;
  /** Monotonic sequence number, unique per bus. */
  seq: number;
  /**
   * The process on the data folder it came from (a `ProcessInfo.id`), when a dashboard attached
   * to a Node system shows another process's event; absent for the system's own.
   */
  process?: string;
}

/** Any recorded event: a typed one, or one declared at run time (`record.declared`). */
export type AnyEventRecord = EventRecord | DeclaredEventRecord;

/** Handler for one event type. */
export type EventHandler<K extends ArmatureEventType> = (payload: ArmatureEvents[K], record: EventRecord<K>) => void;

/** Options of {@link createEventBus}. */
export interface EventBusOptions {
  /** How many recent events to keep for late subscribers. Default: 500. */
  historySize?: number;
  /** Where a failing listener is reported (once per listener). Default: `console.warn`. */
  warn?: (message: string) => void;
}

/** Who subscribed a listener that is not held by a scope. */
export const UNSCOPED_OWNER = '(bus)';

/** Subscribing and emitting; implemented by the bus and by each scope. */
export interface EventSource {
  /** Subscribes to `type`; the returned disposable unsubscribes. */
  on<K extends ArmatureEventType>(type: K, handler: EventHandler<K>): Disposable;
  /** Subscribes to every event, typed and declared. */
  onAny(handler: (record: AnyEventRecord) => void): Disposable;
  /**
   * Emits `type` with `payload` to every subscriber, synchronously. Listeners are isolated: one that
   * throws (or returns a promise that rejects) neither stops the others nor reaches the emitter; its
   * first failure is logged and emitted as `system:listener-failed`, naming the listener's owner.
   * The payload is the emitter's no more: the history, a dashboard's feed and the process
   * journal read it later, so it is not changed after this call (emit a new object instead).
   */
  emit<K extends ArmatureEventType>(type: K, payload: ArmatureEvents[K]): void;
  /** Recent events of the given types, oldest first. */
  history<K extends ArmatureEventType>(types: readonly K[]): EventRecord<K>[];
  /** Every recent event, typed and declared, oldest first. */
  history(): AnyEventRecord[];
  /**
   * Declares events `owner` emits at run time (an agent-made upgrade's), each validated against
   * its JSON Schema on every emit. Throws `INVALID_EVENT_DECLARATION` (see `declared-events.ts`).
   * The same owner declaring again takes its names over (a new version of an upgrade); disposing a
   * handle withdraws the names it still holds.
   */
  declareEvents(owner: string, declarations: readonly EventDeclaration[]): DeclaredEvents;
  /**
   * Whether events named `<owner>:*` belong to the system (a kernel prefix, a built-in upgrade's id
   * or event prefix), so `declareEvents` refuses `owner`.
   */
  isReservedOwner(owner: string): boolean;
  /** Subscribes to one declared event by its full name (declared yet or not). */
  onDeclared(name: string, handler: (payload: unknown, record: DeclaredEventRecord) => void): Disposable;
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
  /** Keeps event prefixes from declared events (the built-in upgrades' ids and event prefixes). */
  reserveEventPrefixes(prefixes: Iterable<string>): void;
  /** The declared events in force: name and owner. */
  declaredEvents(): { name: string; owner: string }[];
}

/**
 * mitt's declarations describe a CommonJS module while Node and bundlers load its ES build, so under
 * `module: nodenext` TypeScript types the default import as the module object `{ default: mitt }`;
 * at run time it is the function. Taking `.default` when present satisfies both readings.
 */
const mitt = ((mittImport as { default?: unknown }).default ?? mittImport) as <E extends Record<EventType, unknown>>() => Emitter<E>;

type MittEvents = { [K in ArmatureEventType]: EventRecord<K> };

/**
 * Calls a listener so that nothing it does reaches the emitter or the other listeners: a throw, or
 * a promise it returns that rejects, is reported through `report` on its first occurrence only
 * (a listener of `python:stdout` that always throws would otherwise report every chunk).
 */
function isolated<A extends unknown[]>(owner: string, type: () => string, call: (...args: A) => unknown, report: (owner: string, type: string, error: unknown) => void): (...args: A) => void {
  let reported = false;
  const fail = (e: unknown) => {
    if (reported) return;
    reported = true;
    report(owner, type(), e);
  };
  return (...args: A) => {
    try {
      const out = call(...args);
      if (out && typeof (out as PromiseLike<unknown>).then === 'function') (out as PromiseLike<unknown>).then(undefined, fail);
    } catch (e) {
      fail(e);
    }
  };
}

/** Creates the typed event bus. */
export function createEventBus(options: EventBusOptions = {}): EventBus {
  const emitter: Emitter<MittEvents> = mitt<MittEvents>();
  let limit = checkSize(options.historySize ?? 500);
  // A ring buffer keeps emit O(1) however long the history is.
  let ring: (AnyEventRecord | undefined)[] = new Array(limit);
  let next = 0;
  let count = 0;
  let seq = 0;
  const reserved = new Set<string>(KERNEL_EVENT_PREFIXES);
  const declared = new Map<string, { handle: object; d: CompiledDeclaration }>();
  const warn = options.warn ?? ((m: string) => console.warn(m));

  /**
   * A listener failed: the log hears of it, and so does the bus (`system:listener-failed`), except
   * when the failing listener was itself listening to that event: a report that fails again would
   * never end.
   */
  const report = (owner: string, type: string, e: unknown) => {
    const error = toErrorInfo(e, 'LISTENER_FAILED');
    warn(`[event-bus] a listener of ${owner} failed on ${type}: ${error.message} (the other listeners still got the event; later failures of this listener are not reported)`);
    if (type !== 'system:listener-failed') bus.emit('system:listener-failed', { owner, event: type, error });
  };

  /** The subscription methods of the bus, for one owner (the bus's own for unscoped listeners, each scope's). */
  const listeners = (owner: string): Pick<EventSource, 'on' | 'onAny' | 'onDeclared'> => ({
    on(type, handler) {
      // A declared event never reaches a typed handler, whatever its name (see onDeclared).
      const call = isolated(owner, () => type, handler as (p: unknown, r: unknown) => unknown, report);
      const h = (record: EventRecord<typeof type>) => {
        if (!(record as { declared?: boolean }).declared) call(record.payload, record);
      };
      emitter.on(type, h as never);
      return toDisposable(() => emitter.off(type, h as never));
    },
    onAny(handler) {
      let current = '*';
      const call = isolated(owner, () => current, handler as (r: unknown) => unknown, report);
      const h = (type: string, record: unknown) => {
        current = type;
        call(record);
      };
      emitter.on('*', h as never);
      return toDisposable(() => emitter.off('*', h as never));
    },
    onDeclared(name, handler) {
      const call = isolated(owner, () => name, handler as (p: unknown, r: unknown) => unknown, report);
      const h = (r: DeclaredEventRecord) => {
        if (r.declared) call(r.payload, r);
      };
      emitter.on(name as ArmatureEventType, h as never);
      return toDisposable(() => emitter.off(name as ArmatureEventType, h as never));
    },
  });
  const unscoped = listeners(UNSCOPED_OWNER);

  const record = (r: AnyEventRecord) => {
    if (limit > 0) {
      ring[next] = r;
      next = (next + 1) % limit;
      count = Math.min(count + 1, limit);
    }
  };

  const bus: EventBus = {
    ...unscoped,
    emit(type, payload) {
      const r = { type, payload, at: Date.now(), seq: ++seq } as EventRecord<typeof type>;
      record(r as EventRecord);
      emitter.emit(type, r as never);
    },
    declareEvents(owner, declarations) {
      const compiled = compileDeclarations(owner, declarations, reserved);
      const handle = {};
      for (const d of compiled) declared.set(d.name, { handle, d });
      let withdrawn = false;
      const holds = (name: string) => declared.get(name)?.handle === handle;
      return {
        owner,
        names: compiled.map((d) => d.name),
        emit(name, payload) {
          const entry = declared.get(name);
          if (withdrawn || (entry && entry.handle !== handle && compiled.some((d) => d.name === name))) {
            throw new ArmatureError('EVENTS_WITHDRAWN', `[events] ${owner} emitted ${name} after its events were withdrawn`, { hint: 'This version of the upgrade is no longer in force.' });
          }
          if (!entry || entry.handle !== handle) {
            throw new ArmatureError('UNDECLARED_EVENT', `[events] ${owner} emitted ${JSON.stringify(String(name).slice(0, 80))}, which it did not declare`, {
              hint: compiled.length ? `Its events: ${compiled.map((d) => d.name).join(', ')}.` : 'It declared no events: declare them (events: [{ name, schema }]).',
            });
          }
          const data = checkPayload(entry.d, payload);
          const r: DeclaredEventRecord = { type: name, payload: data, at: Date.now(), seq: ++seq, owner, declared: true };
          record(r);
          emitter.emit(name as ArmatureEventType, r as never);
        },
        dispose() {
          withdrawn = true;
          for (const d of compiled) if (holds(d.name)) declared.delete(d.name);
        },
      };
    },
    isReservedOwner: (owner) => reserved.has(owner),
    reserveEventPrefixes(prefixes) {
      for (const p of prefixes) reserved.add(p);
    },
    declaredEvents: () => [...declared.values()].map(({ d }) => ({ name: d.name, owner: d.owner })),
    history(types?: readonly string[]) {
      const out: AnyEventRecord[] = [];
      for (let i = 0; i < count; i++) {
        const r = ring[(next - count + i + limit) % limit]!;
        if (!types || types.includes(r.type)) out.push(r);
      }
      return out as never;
    },
    scope(owner) {
      return createScope(bus, listeners(owner), owner);
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

function createScope(bus: EventBus, own: Pick<EventSource, 'on' | 'onAny' | 'onDeclared'>, owner: string): EventScope {
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
    on: (type, handler) => track(own.on(type, handler)),
    onAny: (handler) => track(own.onAny(handler)),
    onDeclared: (name, handler) => track(own.onDeclared(name, handler)),
    isReservedOwner: (eventOwner) => bus.isReservedOwner(eventOwner),
    declareEvents(eventOwner, declarations) {
      const handle = bus.declareEvents(eventOwner, declarations);
      const tracked = track(handle);
      return { owner: handle.owner, names: handle.names, emit: (name, payload) => handle.emit(name, payload), dispose: () => tracked.dispose() };
    },
    emit: (type, payload) => {
      if (disposed) throw new Error(`[event-bus] ${owner} emitted ${type} after its scope was disposed`);
      bus.emit(type, payload);
    },
    history: ((types?: readonly ArmatureEventType[]) => (types ? bus.history(types) : bus.history())) as EventSource['history'],
    get subscriptionCount() {
      return subs.size;
    },
    dispose() {
      disposed = true;
      subs.dispose();
    },
  };
}
