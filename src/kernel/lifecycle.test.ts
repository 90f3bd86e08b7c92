import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore, toDisposable } from './lifecycle.ts';

test('the second of three disposables throws: all three are disposed, newest first, and one AggregateError names the failure', () => {
  const store = new DisposableStore();
  const order: string[] = [];
  store.add(toDisposable(() => order.push('first')));
  store.add(toDisposable(() => {
    order.push('second');
    throw new Error('the second could not close its file');
  }));
  store.add(toDisposable(() => order.push('third')));
  let caught: unknown;
  try {
    store.dispose();
  } catch (e) {
    caught = e;
  }
  assert.deepEqual(order, ['third', 'second', 'first']);
  assert.ok(caught instanceof AggregateError, String(caught));
  assert.equal(caught.errors.length, 1);
  assert.match(caught.message, /1 of 3 disposables failed.*the second could not close its file/);
  assert.doesNotThrow(() => store.dispose(), 'a second dispose is harmless');
  assert.equal(store.size, 0);
});

test('`using` disposes a store and a toDisposable at the end of the block', () => {
  const order: string[] = [];
  {
    using store = new DisposableStore();
    store.add(toDisposable(() => order.push('in store')));
    using single = toDisposable(() => order.push('single'));
    void single;
  }
  assert.deepEqual(order, ['single', 'in store']);
});
