// The decision to replace a worker whose Python does not stop, from the interrupt buffer alone:
// a late look (a starved thread) never counts the wait twice, a run that is over is never replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INTERRUPT_BUFFER_BYTES, INTERRUPT_RUNNING, INTERRUPT_SIGNAL } from '../protocol/interrupt-buffer.ts';
import { InterruptWatch } from './interrupt-watch.ts';

function running() {
  const buffer = new Int32Array(new SharedArrayBuffer(INTERRUPT_BUFFER_BYTES));
  Atomics.store(buffer, INTERRUPT_RUNNING, 1);
  return buffer;
}

test('an unread signal: replaced only after both the grace and grace / resignal looks', () => {
  const buffer = running();
  const watch = new InterruptWatch(buffer, 300, 100);
  watch.send(0);
  assert.equal(Atomics.load(buffer, INTERRUPT_SIGNAL), 2);
  // One late look long after the grace (this thread got no turn): not yet.
  assert.equal(watch.tick(5000), 'wait');
  assert.equal(watch.tick(5100), 'wait');
  assert.equal(watch.tick(5200), 'replace');
});

test('a signal read while the run goes on is sent again; Python that keeps ignoring them is replaced', () => {
  const buffer = running();
  const watch = new InterruptWatch(buffer, 300, 100);
  watch.send(0);
  for (let i = 1; i <= 4; i++) {
    Atomics.store(buffer, INTERRUPT_SIGNAL, 0); // Python read it, and went on
    assert.equal(watch.tick(i * 100), 'wait');
    assert.equal(Atomics.load(buffer, INTERRUPT_SIGNAL), 2, 'sent again');
  }
  Atomics.store(buffer, INTERRUPT_SIGNAL, 0);
  assert.equal(watch.tick(500), 'replace', 'the fifth ignored signal');
});

test('a run that is over stops the signals, however late the look', () => {
  const buffer = running();
  const watch = new InterruptWatch(buffer, 300, 100);
  watch.send(0);
  Atomics.store(buffer, INTERRUPT_RUNNING, 0);
  assert.equal(watch.tick(60_000), 'stop');
});

test('with no grace, the first look that finds the signal unread replaces', () => {
  const buffer = running();
  const watch = new InterruptWatch(buffer, 0, 100);
  watch.send(0);
  assert.equal(watch.tick(100), 'replace');
});
