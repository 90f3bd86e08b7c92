import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Canary } from './canary.ts';

test('trips once, as soon as the failures exceed the share of the watched calls', () => {
  const trips: string[] = [];
  const c = new Canary({ calls: 4, share: 0.5 }, (why) => trips.push(why));
  c.record(false, { code: 'X', message: 'one' });
  c.record(true);
  c.record(false, { code: 'X', message: 'two' });
  assert.deepEqual(trips, [], '2 of 4 is not more than half');
  c.record(false, { code: 'Boom', message: 'three' });
  assert.equal(trips.length, 1);
  assert.equal(trips[0], 'canary: 3 of its first 4 calls failed (more than 50% of the 4 it watches); the last error: Boom: three');
  c.record(false);
  assert.equal(trips.length, 1, 'it trips once');
  assert.deepEqual(c.state, { watched: 4, of: 4, failures: 3, tripped: true });
});

test('calls after the watched ones never trip it', () => {
  const trips: string[] = [];
  const c = new Canary({ calls: 2, share: 0.5 }, (why) => trips.push(why));
  c.record(true);
  c.record(true);
  for (let i = 0; i < 10; i++) c.record(false);
  assert.deepEqual(trips, []);
  assert.equal(new Canary({}, () => {}).calls, 10, 'default: the first 10 calls');
});
