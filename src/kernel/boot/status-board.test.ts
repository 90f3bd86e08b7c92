import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusBoard } from './status-board.ts';
import type { StatusSnapshot } from '../status-snapshot.ts';

/** A board over one counter module; `published` records what went out and when. */
function fixture(intervalMs = 100) {
  let value = 0;
  let source: () => unknown = () => ({ value });
  const published: { id: string; status: StatusSnapshot; at: number }[] = [];
  const warnings: string[] = [];
  const t0 = performance.now();
  const board = new StatusBoard({
    publish: (id, status) => published.push({ id, status, at: performance.now() - t0 }),
    sourceOf: (id) => (id === 'Counter' ? () => source() : undefined),
    intervalMs,
    warn: (m) => warnings.push(m),
  });
  return { board, published, warnings, bump: () => value++, setSource: (s: () => unknown) => (source = s) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
/** Resolves once `n` snapshots went out (never on a clock alone). */
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

test('the first change after quiet goes out at once, after the code that made it', async () => {
  const f = fixture();
  f.bump();
  f.board.changed('Counter');
  f.bump();
  assert.equal(f.published.length, 0, 'not inside the caller');
  await Promise.resolve();
  assert.deepEqual(f.published.map((p) => p.status), [{ value: 2 }], 'one snapshot, with both changes');
  f.board.dispose();
});

test('a burst is coalesced: one at once, then one on the trailing edge with the latest state', async () => {
  const f = fixture(100);
  for (let i = 0; i < 1000; i++) {
    f.bump();
    f.board.changed('Counter');
    if (i % 100 === 0) await tick();
  }
  await until(() => f.published.at(-1)?.status.value === 1000);
  const gaps = f.published.slice(1).map((p, i) => p.at - f.published[i]!.at);
  assert.ok(f.published.length <= 3, `at most a few snapshots for 1000 changes in one burst, got ${f.published.length}`);
  for (const g of gaps) assert.ok(g >= 95, `snapshots at least ~100 ms apart, got ${g.toFixed(1)} ms`);
  assert.deepEqual(f.published.at(-1)!.status, { value: 1000 }, 'the trailing one carries the latest state');
  f.board.dispose();
});

test('a snapshot that breaks the rules is reported once and not published; the last good one stays', async () => {
  const f = fixture(0);
  f.board.changed('Counter');
  await until(() => f.published.length === 1);
  f.setSource(() => ({ when: new Date() }));
  f.board.changed('Counter');
  await tick();
  f.board.changed('Counter');
  await tick();
  assert.equal(f.published.length, 1, 'nothing broken went out');
  assert.equal(f.warnings.length, 1, 'reported once');
  assert.match(f.warnings[0]!, /Counter's status snapshot was not published: \[status\] Counter's status snapshot at \$\.when is a Date.*keeps the last good one/);
  assert.deepEqual(f.board.read('Counter'), { value: 0 }, 'the last good snapshot is still read');
  f.setSource(() => {
    throw new Error('status() broke');
  });
  assert.deepEqual(f.board.read('Counter'), { value: 0 });
  assert.match(f.warnings[1]!, /status\(\) broke/);
  f.board.dispose();
});

test('a forgotten module and a disposed board publish nothing more', async () => {
  const f = fixture(50);
  f.board.changed('Counter');
  await tick();
  f.board.changed('Counter'); // trailing, in ~50 ms
  f.board.forget('Counter');
  f.board.changed('Unknown');
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(f.published.length, 1);
  f.board.dispose();
  f.board.changed('Counter');
  await tick();
  assert.equal(f.published.length, 1);
});
