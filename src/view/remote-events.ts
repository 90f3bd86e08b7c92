/**
 * The event side of a remote view: records arriving from the dashboard server's stream, delivered
 * to subscribers as the bus delivers them (`on` for typed events, `onDeclared` for events declared
 * at run time, `onAny` for all), with a bounded recent history for late subscribers. A listener
 * that throws is reported once and the others still get the event, as on the bus.
 */
import type { AnyEventRecord, EventSource } from '../kernel/event-bus.ts';
import { toDisposable, type Disposable } from '../kernel/lifecycle.ts';

type Listener = (record: AnyEventRecord) => void;

/** Events from a server, kept and delivered. */
export class RemoteEvents implements Pick<EventSource, 'on' | 'onAny' | 'onDeclared' | 'history'> {
  private ring: AnyEventRecord[] = [];
  private readonly listeners = new Set<Listener>();

  constructor(private readonly limit: number) {}

  /** Delivers `record` to every subscriber and keeps it in the history. */
  deliver(record: AnyEventRecord): void {
    this.keep(record);
    for (const l of [...this.listeners]) l(record);
  }

  /** Keeps `record` in the history without delivering it (what the state said had happened). */
  keep(record: AnyEventRecord): void {
    this.ring.push(record);
    if (this.ring.length > this.limit * 2) this.ring = this.ring.slice(-this.limit);
  }

  /** Forgets the history (the server replays everything after a `reset`). */
  clear(): void {
    this.ring = [];
  }

  on: EventSource['on'] = (type, handler) =>
    this.listen(`on ${type}`, (r) => {
      if (r.type === type && !(r as { declared?: boolean }).declared) (handler as (p: unknown, r: unknown) => void)(r.payload, r);
    });

  onAny: EventSource['onAny'] = (handler) => this.listen('onAny', handler);

  onDeclared: EventSource['onDeclared'] = (name, handler) =>
    this.listen(`onDeclared ${name}`, (r) => {
      if (r.type === name && (r as { declared?: boolean }).declared) handler(r.payload, r as never);
    });

  history: EventSource['history'] = ((types?: readonly string[]) => {
    const kept = this.ring.slice(-this.limit);
    return types ? kept.filter((r) => types.includes(r.type)) : kept;
  }) as EventSource['history'];

  private listen(what: string, handler: (r: AnyEventRecord) => void): Disposable {
    let reported = false;
    const l: Listener = (r) => {
      try {
        handler(r);
      } catch (e) {
        if (!reported) {
          reported = true;
          console.warn(`[remote-view] a listener (${what}) failed on ${r.type}: ${(e as Error).message} (the others still got the event; later failures of this listener are not reported)`);
        }
      }
    };
    this.listeners.add(l);
    return toDisposable(() => this.listeners.delete(l));
  }
}
