import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextId, secretId } from './ids.ts';

test('secret ids carry 128 random bits and never repeat; labels stay short', () => {
  const ids = Array.from({ length: 10_000 }, () => secretId('run'));
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids.slice(0, 100)) assert.match(id, /^run-\d+-[A-Za-z0-9_-]{22}$/);
  // Two ids made back to back share nothing but the prefix and the counter's digits.
  const [a, b] = [secretId('c'), secretId('c')];
  assert.notEqual(a.split('-')[2], b.split('-')[2]);
  assert.match(nextId('py'), /^py-\d+$/);
});
