import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventFeed } from './event-feed.ts';
import { serveEventStream } from './event-stream.ts';

const record = (n: number, chunk = 'x') => ({ type: 'python:stdout' as const, payload: { runId: 'r', chunk: `${chunk} ${n}` }, at: n, seq: n });

test('the feed keeps a bounded history by count and by size, and resumes only without a hole', () => {
  const feed = new EventFeed({ limit: 5, maxChars: 10_000 });
  const ids = Array.from({ length: 8 }, (_, i) => feed.push(record(i)).id);
  assert.deepEqual(feed.recent().map((i) => i.id), ids.slice(3));
  assert.equal(feed.lastId, ids[7]);
  assert.deepEqual(feed.since(ids[5]!)?.map((i) => i.id), ids.slice(6));
  assert.deepEqual(feed.since(ids[7]!), []);
  assert.deepEqual(feed.since(ids[2]!)?.map((i) => i.id), ids.slice(3), 'the one after it is still kept');
  assert.equal(feed.since(ids[1]!), undefined, 'the one after it is gone: a hole');
  assert.equal(feed.since(`${feed.epoch}x.3`), undefined);
  assert.equal(feed.since('another.3'), undefined);
  const big = new EventFeed({ limit: 1000, maxChars: 2000, maxRecordChars: 500 });
  for (let i = 0; i < 50; i++) big.push(record(i, 'y'.repeat(200)));
  assert.ok(big.recent().reduce((n, i) => n + i.json.length, 0) <= 2000);
  assert.match(big.push(record(99, 'z'.repeat(1000))).json, /"truncated":true/);
});

test('a page that stops reading is cut off once its unread bytes pass the bound; the server keeps nothing for it', async () => {
  const feed = new EventFeed({ limit: 100 });
  let cut: () => void = () => undefined;
  const closed = new Promise<void>((r) => (cut = r));
  const server = createServer((req, res) => {
    res.once('close', () => cut());
    serveEventStream(req, res, feed, { maxUnreadBytes: 256 * 1024 });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', r));
  socket.write('GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  // A reader that never reads: the kernel's buffers fill, then the server's.
  socket.pause();
  socket.on('error', () => undefined);
  const chunk = 'z'.repeat(16 * 1024);
  let pushed = 0;
  let done = false;
  void closed.then(() => (done = true));
  while (!done && pushed < 20_000) {
    feed.push(record(pushed++, chunk));
    if (pushed % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  assert.ok(done, `cut off after ${pushed} events of 16 KiB`);
  socket.destroy();
  server.close();
});
