import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyEventRecord } from '../kernel/event-bus.ts';
import { createRecordFeed } from './record-feed.ts';

const rec = (type: string, payload: unknown, seq: number, extra: object = {}) => ({ type, payload, at: 1000 + seq, seq, ...extra }) as AnyEventRecord;

test('records are delivered as they came, process tag included, to their type\'s and every event\'s listeners', () => {
  const feed = createRecordFeed();
  const typed: unknown[] = [];
  const all: string[] = [];
  feed.on('python:stdout', (p, r) => typed.push([p, r.seq, r.process]));
  feed.onAny((r) => all.push(`${r.type}@${r.seq}`));
  feed.deliver(rec('python:stdout', { runId: 'r', chunk: 'hi' }, 41, { process: 'p-2' }));
  feed.deliver(rec('tool:started', { callId: 'c', name: 'x', caller: 'ui' }, 42));
  assert.deepEqual(typed, [[{ runId: 'r', chunk: 'hi' }, 41, 'p-2']]);
  assert.deepEqual(all, ['python:stdout@41', 'tool:started@42']);
});

test('declared records reach onDeclared only; the history is bounded and oldest first', () => {
  const feed = createRecordFeed({ historySize: 3 });
  const typed: unknown[] = [];
  const declared: unknown[] = [];
  feed.on('notes-index:counted' as never, (p: unknown) => typed.push(p));
  feed.onDeclared('notes-index:counted', (p) => declared.push(p));
  for (let i = 1; i <= 5; i++) feed.deliver(rec('notes-index:counted', { files: i }, i, { owner: 'upgrade:notes-index', declared: true }));
  assert.deepEqual(typed, []);
  assert.deepEqual(declared.length, 5);
  assert.deepEqual(feed.history().map((r) => r.seq), [3, 4, 5]);
  assert.deepEqual(feed.history(['notes-index:counted' as never]), [], 'typed history has no declared records');
});

test('a listener that throws is reported once and the others still get the record; disposing unsubscribes', () => {
  const warned: string[] = [];
  const feed = createRecordFeed({ warn: (m) => warned.push(m) });
  const got: number[] = [];
  feed.on('tool:started', () => {
    throw new Error('broken listener');
  });
  const sub = feed.on('tool:started', (_p, r) => got.push(r.seq));
  feed.deliver(rec('tool:started', {}, 1));
  feed.deliver(rec('tool:started', {}, 2));
  assert.deepEqual(got, [1, 2]);
  assert.equal(warned.length, 1);
  assert.match(warned[0]!, /broken listener/);
  assert.equal(feed.listenerCount(), 2);
  sub.dispose();
  assert.equal(feed.listenerCount(), 1);
});
