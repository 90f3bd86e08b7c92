import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measureClone } from './measure.ts';

test('estimates strings, binary data, nesting, maps and sets; counts shared objects once', () => {
  const shared = { s: 'x'.repeat(1000) };
  const n = measureClone({ a: shared, b: shared, bytes: new Uint8Array(5000), m: new Map([['k', 'v'.repeat(100)]]), set: new Set([1, 2]) }, 1e9);
  assert.ok(n > 6000 && n < 7000, String(n));
});

test('stops as soon as the limit is passed, even for a huge value', () => {
  // Counts the elements read: the walk must stop long before the end of the array.
  let reads = 0;
  const items = Array.from({ length: 200_000 }, (_, i) => ({ i, s: 'abc' }));
  const huge = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  assert.ok(measureClone(huge, 10_000) > 10_000);
  assert.ok(reads > 0 && reads < 10_000, `${reads} of 200000 elements read`);
  assert.ok(measureClone('z'.repeat(2e6), 1e6) > 1e6);
});

test('cycles end', () => {
  const a: Record<string, unknown> = { name: 'a' };
  a.self = a;
  assert.ok(measureClone(a, 1e6) < 100);
});
