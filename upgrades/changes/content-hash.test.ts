import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson, sha256Hex } from './content-hash.ts';

test('canonical JSON sorts keys at every depth and keeps array order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
  assert.equal(canonicalJson({ a: undefined, b: 'x' }), '{"b":"x"}');
});

test('sha256 matches Node\'s own for text and bytes', async () => {
  for (const text of ['', 'hello', 'ünïcödé ✓', 'x'.repeat(100_000)]) {
    assert.equal(await sha256Hex(text), createHash('sha256').update(text, 'utf8').digest('hex'));
  }
  assert.equal(await sha256Hex(new Uint8Array([0, 255, 7])), createHash('sha256').update(Buffer.from([0, 255, 7])).digest('hex'));
});
