import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Canary } from './canary.ts';

test('trips as soon as the failures exceed the share of the watched calls', () => {
  const c = new Canary({ calls: 4, share: 0.5 });
  assert.equal(c.tripped({ calls: 3, failures: 2 }), undefined, '2 of 4 is not more than half');
  assert.equal(c.tripped({ calls: 4, failures: 3, last: { code: 'Boom', message: 'three' } }), 'canary: 3 of its first 4 calls failed (more than 50% of the 4 it watches); the last error: Boom: three');
  assert.deepEqual(c.state({ calls: 4, failures: 3 }), { watched: 4, of: 4, failures: 3, tripped: true });
});

test('a full window is watched no more', () => {
  const c = new Canary({ calls: 2, share: 0.5 });
  assert.equal(c.watching({ calls: 1, failures: 0 }), true);
  assert.equal(c.watching({ calls: 2, failures: 0 }), false);
  assert.equal(new Canary({}).calls, 10, 'default: the first 10 calls');
});
