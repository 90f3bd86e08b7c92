import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopSpinner } from './loop-spinner.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a hold keeps the loop busy until released, and other tasks still run meanwhile', async () => {
  const spinner = new LoopSpinner(1000);
  spinner.hold();
  assert.equal(spinner.spinning, true);
  // Timers and I/O go on while it spins: the loop only never sleeps.
  await sleep(5);
  assert.equal(spinner.spinning, true);
  spinner.release();
  await sleep(5);
  assert.equal(spinner.spinning, false);
  // Released means answered: the next hold spins again at once.
  spinner.hold();
  assert.equal(spinner.spinning, true);
  spinner.release();
});

test('a window that ends unanswered turns spinning off for the back-off time', async () => {
  const spinner = new LoopSpinner(2, 200);
  spinner.hold();
  await sleep(20);
  assert.equal(spinner.spinning, false, 'the window ended by itself');
  spinner.hold();
  assert.equal(spinner.spinning, false, 'backing off: the other thread may have had no core to answer on');
  await sleep(250);
  spinner.hold();
  assert.equal(spinner.spinning, true, 'spinning again after the back-off');
  spinner.release();
});

test('a window of 0 never spins', () => {
  const spinner = new LoopSpinner(0);
  spinner.hold();
  assert.equal(spinner.spinning, false);
});
