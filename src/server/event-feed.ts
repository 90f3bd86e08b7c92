/**
 * The events a Node-attached dashboard server hands its pages: the booted system's own and every
 * other process's on the data folder, in the order they reached the server, each with an id
 * (`<epoch>.<n>`, the epoch being this server's start) for `Last-Event-ID` resume, and a bounded
 * recent history (by count and by bytes) replayed to a page that connects.
 */
import type { AnyEventRecord } from '../kernel/event-bus.ts';
import { toDisposable, type Disposable } from '../kernel/lifecycle.ts';

/** One event as the server serves it: the record (with `process` when another process's) and its id and JSON. */
export interface FeedItem {
  id: string;
  record: AnyEventRecord;
  /** The record as JSON, with its id: what the stream sends. */
  json: string;
}

/** Options of {@link EventFeed}. */
export interface EventFeedOptions {
  /** Most events kept for replay. Default: 5000. */
  limit?: number;
  /** Most characters of JSON kept for replay. Default: 8 MiB. */
  maxChars?: number;
  /** Largest record, in characters of JSON; a bigger one is served as a stub naming its size. Default: 256 KiB. */
  maxRecordChars?: number;
}

/** The server's ordered, bounded event feed. */
export class EventFeed {
  /** This feed's epoch: ids from another (an earlier server) are not resumed. */
  readonly epoch = Date.now().toString(36);
  private readonly items: FeedItem[] = [];
  private head = 0;
  private chars = 0;
  private n = 0;
  private readonly listeners = new Set<(item: FeedItem) => void>();
  private readonly limit: number;
  private readonly maxChars: number;
  private readonly maxRecordChars: number;

  constructor(options: EventFeedOptions = {}) {
    this.limit = options.limit ?? 5000;
    this.maxChars = options.maxChars ?? 8 * 1024 * 1024;
    this.maxRecordChars = options.maxRecordChars ?? 256 * 1024;
  }

  /** Adds `record`, hands it to every subscriber, and keeps it for replay. */
  push(record: AnyEventRecord): FeedItem {
    const id = `${this.epoch}.${++this.n}`;
    let json = JSON.stringify({ ...record, id });
    if (json.length > this.maxRecordChars) json = JSON.stringify({ ...record, payload: { truncated: true, chars: json.length }, id });
    const item: FeedItem = { id, record, json };
    this.items.push(item);
    this.chars += json.length;
    while (this.items.length - this.head > this.limit || (this.chars > this.maxChars && this.items.length - this.head > 1)) {
      this.chars -= this.items[this.head]!.json.length;
      this.items[this.head++] = undefined as never;
    }
    // Compact now and then: the array does not grow for good.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    for (const l of this.listeners) l(item);
    return item;
  }

  /** Every kept item, oldest first. */
  recent(): FeedItem[] {
    return this.items.slice(this.head);
  }

  /** The last id handed out, or '' before the first. */
  get lastId(): string {
    return this.n ? `${this.epoch}.${this.n}` : '';
  }

  /**
   * The items after `id`, or undefined when `id` cannot be resumed from (another epoch, or older
   * than what is kept): the caller replays everything, saying so.
   */
  since(id: string): FeedItem[] | undefined {
    const [epoch, raw] = id.split('.');
    const n = Number(raw);
    if (epoch !== this.epoch || !Number.isInteger(n) || n > this.n) return undefined;
    const kept = this.recent();
    if (n === this.n) return [];
    const first = kept[0] ? Number(kept[0].id.split('.')[1]) : this.n + 1;
    // The first one missed is gone: resuming would leave a hole.
    if (n + 1 < first) return undefined;
    return kept.slice(n + 1 - first);
  }

  /** Calls `listener` with every item pushed from now on. */
  subscribe(listener: (item: FeedItem) => void): Disposable {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  }
}
