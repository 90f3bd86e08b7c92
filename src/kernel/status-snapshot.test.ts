import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkStatusSnapshot, STATUS_MAX_BYTES } from './status-snapshot.ts';

test('a plain snapshot passes as a copy that shares nothing with the module\'s objects', () => {
  const rows = [{ name: 'read_file', calls: 3, ok: true, last: null }];
  const raw = { rows, total: 3, note: 'x', skipped: undefined };
  const snap = checkStatusSnapshot('ToolRunner', raw);
  assert.deepEqual(snap, { rows, total: 3, note: 'x' });
  rows[0]!.calls = 4;
  assert.equal((snap.rows as { calls: number }[])[0]!.calls, 3, 'the published copy stays as it was');
});

test('anything but plain data is refused, naming the module, the path and the fix', () => {
  const cases: [unknown, RegExp][] = [
    [{ at: new Date(0) }, /ToolRunner's status snapshot at \$\.at is a Date/],
    [{ files: new Map() }, /at \$\.files is a Map/],
    [{ list: [1, undefined] }, /at \$\.list\[1\] is undefined/],
    [{ mean: NaN }, /at \$\.mean is NaN, not a finite number/],
    [{ big: Infinity }, /at \$\.big is Infinity/],
    [{ f: () => 1 }, /at \$\.f is a function/],
    [{ n: 10n }, /at \$\.n is a bigint/],
    [{ 'a b': { c: Symbol('s') } }, /at \$\["a b"\]\.c is a symbol/],
    [[1, 2], /at \$ is an array, not an object/],
    [null, /at \$ is null, not an object/],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => checkStatusSnapshot('ToolRunner', value), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'INVALID_STATUS');
      assert.match(e.message, message);
      assert.ok(e.hint, 'it says what to do');
      return true;
    });
  }
});

test('a cycle is refused as too deep instead of looping', () => {
  const a: Record<string, unknown> = {};
  a.self = a;
  assert.throws(() => checkStatusSnapshot('M', a), /nests deeper than 32 levels/);
});

test(`a snapshot over ${STATUS_MAX_BYTES} bytes of JSON is refused with its size`, () => {
  const fits = { text: 'x'.repeat(STATUS_MAX_BYTES - 20) };
  assert.ok(checkStatusSnapshot('Workspace', fits));
  // Multi-byte characters count as the bytes they take.
  const over = { text: 'é'.repeat(STATUS_MAX_BYTES / 2) };
  assert.throws(() => checkStatusSnapshot('Workspace', over), /Workspace's status snapshot at \$ is 65547 bytes of JSON, more than 65536/);
});
