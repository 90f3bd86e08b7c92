// The encoder is checked against the real decoder: CPython's marshal.loads inside Pyodide.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { type MarshalTooLargeError, toAnswer, toMarshal } from './marshal.ts';

let py: PyodideInterface;
before(async () => {
  py = await loadPyodide();
});

/** Decodes in Python and returns repr() of the result. */
function decode(value: unknown): string {
  py.globals.set('data', toMarshal(value));
  return py.runPython('import marshal\nrepr(marshal.loads(data.to_bytes()))') as string;
}

test('scalars map to native Python values', () => {
  assert.equal(decode(null), 'None');
  assert.equal(decode(undefined), 'None');
  assert.equal(decode(true), 'True');
  assert.equal(decode(false), 'False');
  assert.equal(decode(0), '0');
  assert.equal(decode(-7), '-7');
  assert.equal(decode(2 ** 31), '2147483648');
  assert.equal(decode(-(2 ** 31) - 1), '-2147483649');
  assert.equal(decode(Number.MAX_SAFE_INTEGER), '9007199254740991');
  assert.equal(decode(12345678901234567890123n), '12345678901234567890123');
  assert.equal(decode(-(2n ** 100n)), String(-(2n ** 100n)));
  assert.equal(decode(1.5), '1.5');
  assert.equal(decode(NaN), 'nan');
  assert.equal(decode(-Infinity), '-inf');
  assert.equal(decode(''), "''");
  assert.equal(decode('héllo ✓ 𝄞'), "'héllo ✓ 𝄞'");
  assert.equal(decode('a'.repeat(300)), `'${'a'.repeat(300)}'`);
  assert.equal(decode('é'.repeat(70)), `'${'é'.repeat(70)}'`);
  assert.equal(decode(new Uint8Array([0, 1, 255])), "b'\\x00\\x01\\xff'");
  assert.equal(decode(new Date(Date.UTC(2026, 0, 2))), "'2026-01-02T00:00:00.000Z'");
});

test('containers: nested lists and dicts, empty ones, repeated keys, Map and Set', () => {
  assert.equal(decode([]), '[]');
  assert.equal(decode({}), '{}');
  assert.equal(decode({ a: [1, { b: null }], c: { d: [[], {}] } }), "{'a': [1, {'b': None}], 'c': {'d': [[], {}]}}");
  const rows = Array.from({ length: 3 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['x'] }));
  assert.equal(decode(rows), "[{'id': 0, 'name': 'n0', 'tags': ['x']}, {'id': 1, 'name': 'n1', 'tags': ['x']}, {'id': 2, 'name': 'n2', 'tags': ['x']}]");
  assert.equal(decode(new Map([['k', 1]])), "{'k': 1}");
  assert.equal(decode(new Set([1, 2])), '[1, 2]');
  assert.equal(decode({ skip: undefined, keep: 1 }), "{'keep': 1}");
});

test('repeated keys are sent once (references), so rows are smaller than their JSON', () => {
  const rows = Array.from({ length: 1000 }, (_, i) => ({ identifier: i, description: 'x', category: 'y' }));
  assert.ok(toMarshal(rows).length < JSON.stringify(rows).length * 0.6, `${toMarshal(rows).length} vs ${JSON.stringify(rows).length}`);
  py.globals.set('data', toMarshal(rows));
  assert.equal(py.runPython('import marshal\nr = marshal.loads(data.to_bytes())\nrepr((len(r), r[999]))'), "(1000, {'identifier': 999, 'description': 'x', 'category': 'y'})");
});

test('values Python cannot receive are refused with their path', () => {
  assert.throws(() => toMarshal({ a: [1, () => 1] }), /cannot send a function to Python \(at \$\.a\[1\]\)/);
  const cyclic: Record<string, unknown> = { x: 1 };
  cyclic.self = cyclic;
  assert.throws(() => toMarshal({ root: cyclic }), /cycle at \$\.root\.self: /);
  const list: unknown[] = [1];
  list.push({ back: list });
  assert.throws(() => toMarshal(list), /cycle at \$\[1\]\.back: /);
  // Deep nesting and the same object twice side by side are not cycles.
  let deep: unknown = 'bottom';
  for (let i = 0; i < 60; i++) deep = { d: deep };
  const shared = { s: 1 };
  assert.match(decode({ deep, pair: [shared, shared] }), /'bottom'.*'pair': \[\{'s': 1\}, \{'s': 1\}\]/);
  assert.throws(() => toMarshal(Symbol('s')), /cannot send a symbol/);
});

test('encoding into a growable shared target gives the same bytes, in place when it fits, privately when it cannot grow', () => {
  const target = (initial: number, max: number) => {
    const sab = new SharedArrayBuffer(initial, { maxByteLength: max });
    const grow = (n: number) => {
      if (n > sab.maxByteLength) return undefined;
      sab.grow(Math.max(n, sab.byteLength));
      return new Uint8Array(sab, 0, sab.byteLength);
    };
    return { sab, t: { bytes: new Uint8Array(sab, 0, initial), grow } };
  };
  const values: unknown[] = [
    1,
    'x'.repeat(100_000) + 'é😀',
    ['a'.repeat(70), 'é'.repeat(5000), { k: 'ü'.repeat(40_000) }],
    Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `n${i}`, note: 'ñ'.repeat(i % 90) })),
  ];
  for (const v of values) {
    const own = toMarshal(v);
    const roomy = target(16, 1 << 24);
    const inPlace = toMarshal(v, roomy.t);
    assert.equal(inPlace.buffer, roomy.sab, 'written into the target');
    assert.deepEqual(Uint8Array.from(inPlace), own);
    const cramped = target(16, 64);
    const moved = toMarshal(v, cramped.t);
    if (own.length > 64) assert.notEqual(moved.buffer, cramped.sab, 'moved to a buffer of its own');
    assert.deepEqual(Uint8Array.from(moved), own);
  }
  const long = 'x'.repeat(100_000) + 'é😀';
  assert.equal(decode(long), `'${long}'`);
});

test('a byte limit stops the encoding early, for one huge string and for many small rows', () => {
  const limit = 1 << 20;
  assert.throws(() => toAnswer(0, 'x'.repeat(50 * 1024 * 1024), undefined, false, limit), (e: MarshalTooLargeError) => e.code === 'ANSWER_TOO_LARGE' && e.limit === limit);
  const rows = Array.from({ length: 2_000_000 }, (_, i) => ({ id: i, name: `row ${i}` }));
  assert.throws(() => toMarshal(rows, undefined, limit), (e: MarshalTooLargeError) => e.bytes > limit && e.bytes < limit * 2, 'stopped soon after the limit');
  // Below the limit nothing changes.
  assert.deepEqual(toMarshal({ a: [1, 'é'] }, undefined, limit), toMarshal({ a: [1, 'é'] }));
});
