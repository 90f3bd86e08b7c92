// Crash consistency of the change store: a real system in a child process proposes, approves,
// retires and calls agent-made tools, and is killed with SIGKILL at one write boundary of the
// store after another (ARMATURE_STORE_FAULT: before the write, halfway through it, or after it is
// durable but before the writer hears so). After every kill a fresh process boots on the same data
// folder: each target has exactly one change in force, the one its history says; the tool answers
// with that version's code (or not at all when it is retired); no change stays pending with an
// approver; and every line the kill damaged was reported and recorded. `npm run soak` runs 50
// rounds, half of them killed at a random moment instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSharedDirectory } from '../../src/platform/node-shared-directory.ts';
import { ChangeStore } from '../../upgrades/changes/change-store.ts';
import { startLiveSystem, type LiveSystem } from '../helpers/live-system.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { random, SEED, SOAK } from './seeded.ts';

const ROUNDS = SOAK ? 50 : 8;
const MODES = ['before', 'torn', 'after'] as const;
const TARGETS = ['made.ct', 'made.cu'];

/** A JavaScript tool whose answer names its round. */
const tool = (name: string, round: number) => ({
  name,
  description: `Answers the round it was made in (${round}).`,
  input_schema: { type: 'object', properties: {}, additionalProperties: false },
  language: 'javascript',
  code: `export default async () => 'r${round}';\n`,
  tests: [{ args: {}, expect: `r${round}` }],
  reason: `round ${round}`,
});

type History = { versions: { change: string; version: number | null; hash: string | null; status: string; approver?: string }[] };

/** One round's work in the child: every step may be the one it dies in. */
async function work(sys: LiveSystem, round: number): Promise<void> {
  const history = await sys.call<History>('tool_history', { name: 'made.ct' });
  const inForce = history.ok && history.value.versions.some((v) => v.status === 'active' && v.hash !== null);
  const proposed = await sys.call<{ change: string; status: string }>(inForce ? 'update_tool' : 'create_tool', tool('ct', round));
  if (!proposed.ok) return;
  assert.equal(proposed.value.status, 'pending', JSON.stringify(proposed));
  const approved = await sys.approve(proposed.value.change);
  if (!approved.ok) return;
  const answer = await sys.call<string>('made.ct', {});
  assert.ok(answer.ok && answer.value === `r${round}`, `round ${round}: the approved version answers: ${JSON.stringify(answer)}`);
  const other = await sys.call<{ status: string }>(round ? 'update_tool' : 'create_tool', tool('cu', round), 'cli');
  if (other.ok) assert.equal(other.value.status, 'active');
  if (round % 3 === 2) {
    const retired = await sys.call<{ status: string }>('retire_tool', { name: 'ct' }, 'cli');
    if (!retired.ok) return;
    assert.equal(retired.value.status, 'retired');
    const gone = await sys.call('made.ct', {});
    assert.equal(!gone.ok && (gone as { error: { code: string } }).error.code, 'UNKNOWN_TOOL', 'retired: it no longer answers');
  }
}

/** What a fresh process on `data` says: one change in force per target, the one its history says, answering with its code. */
async function verify(data: string, round: number): Promise<{ repaired: number }> {
  const sys = await startLiveSystem(data);
  try {
    for (const target of TARGETS) {
      const history = await sys.call<History>('tool_history', { name: target });
      if (!history.ok) continue;
      const active = history.value.versions.filter((v) => v.status === 'active');
      assert.ok(active.length <= 1, `round ${round}: ${target} has ${active.length} changes in force: ${JSON.stringify(active)}`);
      const stuck = history.value.versions.filter((v) => v.status === 'pending' && v.approver);
      assert.deepEqual(stuck, [], `round ${round}: ${target} has a pending change with an approver`);
      const answer = await sys.call<string>(target, {});
      const inForce = active[0];
      if (!inForce || inForce.hash === null) {
        assert.equal(!answer.ok && (answer as { error: { code: string } }).error.code, 'UNKNOWN_TOOL', `round ${round}: ${target} has no version in force, yet answers ${JSON.stringify(answer)}`);
        continue;
      }
      const code = (JSON.parse(readFileSync(join(data, 'changes', 'blobs', `${inForce.hash}.json`), 'utf8')) as { content: { code: string } }).content.code;
      const expected = /'(r\d+)'/.exec(code)![1];
      assert.ok(answer.ok && answer.value === expected, `round ${round}: ${target} v${inForce.version} is in force (it answers ${expected}), the live code answered ${JSON.stringify(answer)}`);
    }
    return { repaired: sys.events.filter((e) => e.event === 'change:repaired').length };
  } finally {
    await sys.close();
  }
}

test(`a system killed at ${ROUNDS} write boundaries of the change store: one version in force per target, the one the history says, and what the kill damaged is reported`, { timeout: SOAK ? 3_600_000 : 600_000 }, async () => {
  const data = join(tempDir('change-crash'), 'data');
  const r = random(SEED);
  let killed = 0;
  let repairedRounds = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const timed = SOAK && round % 2 === 1;
    const fault = `${1 + (round % 7)}:${MODES[round % 3]}`;
    const sys = await startLiveSystem(data, timed ? {} : { ARMATURE_STORE_FAULT: fault });
    const exited = new Promise<number | null>((res) => sys.child.once('exit', (code, signal) => res(signal === 'SIGKILL' ? -9 : code)));
    if (timed) setTimeout(() => sys.child.kill('SIGKILL'), 300 + r.int(3000)).unref();
    // The work ends when the child dies (its answers never come) or when it is done.
    await Promise.race([work(sys, round), exited]);
    if (timed) await exited;
    const how = await Promise.race([exited, new Promise<'alive'>((res) => setTimeout(() => res('alive'), 50))]);
    if (how === 'alive') await sys.close();
    else killed++;

    // A journal that does not end with a line break holds a line the kill cut short.
    const journal = readFileSync(join(data, 'changes', 'journal.jsonl'));
    const torn = journal.byteLength > 0 && journal[journal.byteLength - 1] !== 0x0a;
    const { repaired } = await verify(data, round);
    if (torn) assert.ok(repaired, `round ${round}: the kill tore the journal's last line, and the next boot did not report its repair`);
    if (repaired) repairedRounds++;
    // Whatever the kill damaged, the journal reads clean now: each damaged line was recorded.
    const store = new ChangeStore(await openSharedDirectory(join(data, 'changes')));
    await store.refresh();
    assert.deepEqual(store.fold.problems, [], `round ${round} (${timed ? 'killed at a random moment' : `fault ${fault}`}): damaged lines not recorded`);
    for (const target of TARGETS) assert.ok(store.records.history('tool', target).filter((x) => x.status === 'active').length <= 1);
    await store.shared.close();
  }
  assert.ok(killed >= ROUNDS / 2, `the child was killed in ${killed} of ${ROUNDS} rounds`);
  process.stderr.write(`change crash consistency: ${ROUNDS} rounds, ${killed} kills, ${repairedRounds} boots that repaired the journal\n`);
});
