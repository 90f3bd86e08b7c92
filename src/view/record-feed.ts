import type { AnyEventRecord, EventRecord, EventSource } from '../kernel/event-bus.ts';
import type { DeclaredEventRecord } from '../kernel/declared-events.ts';
import type { ArmatureEventType } from '../kernel/events.ts';
import { toDisposable } from '../kernel/lifecycle.ts';

/**
 * The events of a system this view does not run: records that arrive from elsewhere (a server's
 * event stream, a recording) delivered as they came — their `at`, `seq` and `process` kept —
 * with the same subscription methods and bounded history as the bus.
 */
export interface RecordFeed extends Pick<EventSource, 'on' | 'onAny' | 'onDeclared' | 'history'> {
  /** Delivers one record to the subscribers of its type and of every event, and keeps it in the history. */
  deliver(record: AnyEventRecord): void;
  /** Handlers subscribed (for leak checks). */
  listenerCount(): number;
}

/** Options of {@link createRecordFeed}. */
export interface RecordFeedOptions {
  /** How many recent records to keep for late subscribers. Default: 2000. */
  historySize?: number;
  /** Where a failing listener is reported (once per listener). Default: `console.warn`. */
  warn?: (message: string) => void;
}

type Handler = (record: AnyEventRecord) => void;

/** Creates a {@link RecordFeed}. */
export function createRecordFeed(options: RecordFeedOptions = {}): RecordFeed {
  const limit = Math.max(0, options.historySize ?? 2000);
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const ring: AnyEventRecord[] = [];
  let start = 0;
  const byType = new Map<string, Set<Handler>>();
  const any = new Set<Handler>();

  /** A listener that throws is reported once and never reaches the others or the deliverer. */
  const isolated = (what: string, call: Handler): Handler => {
    let reported = false;
    return (r) => {
      try {
        call(r);
      } catch (e) {
        if (reported) return;
        reported = true;
        warn(`[view] a listener of ${what} failed on ${r.type}: ${(e as Error)?.message ?? String(e)} (the other listeners still got the event)`);
      }
    };
  };
  const add = (set: Set<Handler>, h: Handler) => {
    set.add(h);
    return toDisposable(() => set.delete(h));
  };
  const typed = (type: string) => {
    let set = byType.get(type);
    if (!set) byType.set(type, (set = new Set()));
    return set;
  };
  const recent = (): AnyEventRecord[] => [...ring.slice(start), ...ring.slice(0, start)];

  return {
    on(type, handler) {
      const call = isolated(type, (r) => (handler as (p: unknown, r: unknown) => void)(r.payload, r));
      return add(typed(type), (r) => !(r as DeclaredEventRecord).declared && call(r));
    },
    onAny(handler) {
      return add(any, isolated('*', handler));
    },
    onDeclared(name, handler) {
      const call = isolated(name, (r) => handler(r.payload, r as DeclaredEventRecord));
      return add(typed(name), (r) => !!(r as DeclaredEventRecord).declared && call(r));
    },
    history: ((types?: readonly ArmatureEventType[]) => {
      const all = recent();
      return types ? (all.filter((r) => (types as readonly string[]).includes(r.type) && !(r as DeclaredEventRecord).declared) as EventRecord[]) : all;
    }) as EventSource['history'],
    deliver(record) {
      if (limit > 0) {
        if (ring.length < limit) ring.push(record);
        else {
          ring[start] = record;
          start = (start + 1) % limit;
        }
      }
      for (const h of [...(byType.get(record.type) ?? [])]) h(record);
      for (const h of [...any]) h(record);
    },
    listenerCount: () => [...byType.values()].reduce((n, s) => n + s.size, any.size),
  };
}
