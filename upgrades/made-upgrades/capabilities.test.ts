import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateBudget, upgradeCapabilities } from './capabilities.ts';
import { memoryStorage } from './storage.ts';

test('a rate budget allows bursts up to its rate and refills with time', () => {
  let now = 0;
  const b = new RateBudget(3, () => now);
  assert.deepEqual([b.take(), b.take(), b.take(), b.take()], [true, true, true, false]);
  now = 340;
  assert.deepEqual([b.take(), b.take()], [true, false]);
});

test('emit completes the event name and stops at its rate; status too', async () => {
  const emitted: string[] = [];
  const caps = upgradeCapabilities({ id: 'notes-index', callTool: async () => 1, emit: (n) => void emitted.push(n), status: () => undefined, storage: memoryStorage('notes-index'), rate: 2 });
  caps.emit!('counted', {});
  caps.emit!('notes-index:reset', {});
  assert.throws(() => caps.emit!('counted', {}), /RATE_LIMITED|more than 2 events a second/);
  assert.deepEqual(emitted, ['notes-index:counted', 'notes-index:reset']);
  caps.status!({});
  caps.status!({});
  assert.throws(() => caps.status!({}), /status updates a second/);
  assert.throws(() => caps.call_tool!(5, {}), /needs a tool name/);
  assert.equal(await caps.call_tool!('read_file', {}), 1);
});
