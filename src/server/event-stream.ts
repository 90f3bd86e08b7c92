/**
 * One page's Server-Sent Events stream over the {@link EventFeed}: what it missed first (after
 * `Last-Event-ID`, or everything kept, announced by a `reset` event when it cannot resume), then
 * every new event, written once per tick. A page that does not keep up (a frozen tab, a burst of
 * 10,000 lines it cannot read) is cut off once its unread bytes pass a bound, instead of the server
 * holding them: the page reconnects with its last id and resumes from the feed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventFeed, FeedItem } from './event-feed.ts';

/** Options of {@link serveEventStream}. */
export interface EventStreamOptions {
  /** Bytes a page may leave unread before it is cut off. Default: 4 MiB. */
  maxUnreadBytes?: number;
  /** How often a comment keeps idle connections open. Default: 15 s. */
  keepAliveMs?: number;
}

const frame = (item: FeedItem) => `id: ${item.id}\ndata: ${item.json}\n\n`;

/** Serves the stream on `res` until the page goes; `after` is the id to resume after (query or header). */
export function serveEventStream(req: IncomingMessage, res: ServerResponse, feed: EventFeed, options: EventStreamOptions = {}): void {
  const maxUnread = options.maxUnreadBytes ?? 4 * 1024 * 1024;
  const header = req.headers['last-event-id'];
  const after = (typeof header === 'string' && header) || new URL(req.url ?? '/', 'http://x').searchParams.get('after') || '';
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  // Reconnect soon after a cut: the page resumes where it was.
  let out = 'retry: 500\n\n';
  const missed = after ? feed.since(after) : feed.recent();
  if (missed === undefined) out += `event: reset\ndata: {}\n\n${feed.recent().map(frame).join('')}`;
  else out += missed.map(frame).join('');
  res.write(out);
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending.length || res.destroyed) return;
    const text = pending.join('');
    pending = [];
    res.write(text);
    if (res.writableLength > maxUnread) res.destroy();
  };
  const subscription = feed.subscribe((item) => {
    pending.push(frame(item));
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
  const end = () => {
    subscription.dispose();
    clearInterval(keepAlive);
    pending = [];
  };
  res.on('close', end);
  req.on('close', end);
}
