import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ensureStructuredCloneable } from './clone-safety.ts';

const safe = (v: unknown) => {
  const out = ensureStructuredCloneable(v);
  // The point of the exercise: both of these must succeed on every output.
  structuredClone(out);
  JSON.stringify(out);
  return out;
};

test('plain JSON data passes through unchanged', () => {
  const v = { a: [1, 'two', true, null, { b: 2.5 }], e: [], o: {} };
  assert.deepEqual(safe(v), v);
});

test('each non-cloneable kind follows its stated rule', () => {
  function named() {}
  const sym = Symbol('tag');
  // Without the rules these fail to cross a boundary (or cross as something else).
  assert.throws(() => structuredClone(named), /could not be cloned/);
  assert.throws(() => JSON.stringify(12n), /BigInt/);
  assert.equal(JSON.stringify([NaN]), '[null]');
  assert.equal(safe(named), '[function named]');
  assert.equal(safe(() => 1), '[function anonymous]');
  assert.equal(safe(sym), '[symbol tag]');
  assert.deepEqual(safe([NaN, Infinity, -Infinity]), ['NaN', 'Infinity', '-Infinity']);
  assert.equal(safe(12n), 12);
  assert.equal(safe(2n ** 80n), '1208925819614629174706176');
  assert.equal(safe(-(2n ** 53n) - 1n), '-9007199254740993');
  assert.equal(safe(new Date(Date.UTC(2026, 10, 22))), '2026-11-22T00:00:00.000Z');
  assert.equal(safe(new Date(NaN)), '[invalid date]');
  assert.deepEqual(safe(new Map<unknown, unknown>([['k', 1], [2, new Set([3])]])), { k: 1, '2': [3] });
  assert.deepEqual(safe(new Set(['a', 'b'])), ['a', 'b']);
  assert.deepEqual(safe(new Uint8Array([0, 255])), { $bytes: 'AP8=' });
  assert.deepEqual(safe(new Uint8Array([1, 2]).buffer), { $bytes: 'AQI=' });
  assert.deepEqual(safe(new Float64Array([1.5, NaN])), [1.5, 'NaN']);
  assert.deepEqual(safe(new BigInt64Array([5n])), [5]);
  assert.deepEqual(safe(new TypeError('bad')), { name: 'TypeError', message: 'bad' });
  assert.deepEqual(safe({ u: undefined, keep: 1 }), { keep: 1 });
  assert.deepEqual(safe([undefined]), [null]);
  assert.equal(safe(undefined), null);
});

test('cycles become "[circular]" where they recur; shared references are copied', () => {
  const a: Record<string, unknown> = { name: 'a' };
  a.self = a;
  const list: unknown[] = [1];
  list.push(list);
  assert.deepEqual(safe(a), { name: 'a', self: '[circular]' });
  assert.deepEqual(safe(list), [1, '[circular]']);
  const shared = { x: 1 };
  assert.deepEqual(safe([shared, shared]), [{ x: 1 }, { x: 1 }]);
});

test('deep nesting is cut at maxDepth', () => {
  let deep: unknown = 'bottom';
  for (let i = 0; i < 10; i++) deep = [deep];
  assert.deepEqual(ensureStructuredCloneable(deep, { maxDepth: 3 }), [[['[max depth]']]]);
});

test('Pyodide proxies, callable or not, are described and destroyed', () => {
  let destroyed = 0;
  const proxy = { type: 'Foo', toJs: () => ({}), toString: () => '<Foo object>', destroy: () => destroyed++ };
  assert.deepEqual(safe({ p: proxy }), { p: '[PyProxy Foo: <Foo object>]' });
  // A callable PyProxy is a JS function: it must still be described as a proxy and released.
  const callable = Object.assign(() => 1, { type: 'builtin_function_or_method', toJs: () => null, destroy: () => destroyed++ });
  callable.toString = () => '<built-in function len>';
  assert.throws(() => structuredClone(callable), /could not be cloned/);
  assert.equal(String(safe([callable])), '[PyProxy builtin_function_or_method: <built-in function len>]');
  assert.equal(destroyed, 2);
  const kept = { type: 'Bar', toJs: () => ({}), toString: () => 'x'.repeat(500), destroy: () => destroyed++ };
  assert.equal(ensureStructuredCloneable(kept, { destroyProxies: false }), `[PyProxy Bar: ${'x'.repeat(200)}…]`);
  assert.equal(destroyed, 2, 'destroyProxies: false leaves the proxy alive');
});

test('JS proxies and throwing getters become "[unreadable ...]" instead of throwing', () => {
  const trap = new Proxy({}, { ownKeys: () => { throw new Error('no keys for you'); } });
  const { proxy: revoked, revoke } = Proxy.revocable({ a: 1 }, {});
  revoke();
  const getter = { ok: 1, get bad(): never { throw new RangeError('getter failed'); } };
  assert.equal(safe(trap), '[unreadable Object: no keys for you]');
  assert.match(String(safe([revoked])), /^\[unreadable Object: .*revoked/);
  assert.equal(safe(getter), '[unreadable Object: getter failed]');
  // A proxy that reads normally is copied like any object.
  assert.deepEqual(safe(new Proxy({ a: 1 }, {})), { a: 1 });
});

test('other built-ins: RegExp, boxed primitives, objects without data, shared memory', () => {
  assert.equal(safe(/a+b/gi), '/a+b/gi');
  assert.deepEqual(safe([Object(1), Object('s'), Object(true)]), [1, 's', true]);
  const p = Promise.resolve(1);
  assert.throws(() => structuredClone(p), /could not be cloned/);
  assert.deepEqual(safe([p, new WeakMap(), new WeakSet()]), ['[Promise]', '[WeakMap]', '[WeakSet]']);
  const sab = new SharedArrayBuffer(2);
  new Uint8Array(sab).set([1, 2]);
  assert.deepEqual(safe(sab), { $bytes: 'AQI=' });
  assert.deepEqual(safe(new DataView(new Uint8Array([9, 8, 7]).buffer, 1)), { $bytes: 'CAc=' });
});

test("undefinedAs: 'null' keeps None-like values as null everywhere", () => {
  assert.deepEqual(ensureStructuredCloneable({ a: undefined, b: [undefined], m: new Map([['k', undefined]]) }, { undefinedAs: 'null' }), { a: null, b: [null], m: { k: null } });
});

test('class instances keep their own enumerable data only', () => {
  class Point {
    constructor(public x: number, public y: number) {}
    norm() {
      return Math.hypot(this.x, this.y);
    }
  }
  assert.deepEqual(safe(new Point(3, 4)), { x: 3, y: 4 });
});
