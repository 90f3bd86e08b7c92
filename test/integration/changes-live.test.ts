// The change store shared live across processes on one data folder: a person's approval with
// `armature approve` comes into force in a system that is already running, without a restart; a
// retirement there takes the tool out here; and the canary counts the calls of every process, so
// six `armature call`s in six processes trip it as six calls in one do — and it rolls back once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import { startLiveSystem } from '../helpers/live-system.ts';
import { SLUGIFY } from '../helpers/made-tool-fixtures.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** A JavaScript tool that fails for negative numbers. */
const FLAKY = {
  name: 'flaky',
  description: 'Echoes x; fails for negative x.',
  input_schema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'], additionalProperties: false },
  language: 'javascript',
  code: "export default async ({ x }) => { if (x < 0) throw new Error('negative: ' + x); return x; };\n",
  tests: [{ args: { x: 1 }, expect: 1 }],
  reason: 'an echo',
};

test('armature approve in another process brings the change into force in the running system; a retirement there takes it out here', { timeout: 300_000 }, async () => {
  const work = tempDir('live');
  const data = join(work, 'data');
  const live = await startLiveSystem(data);
  try {
    const made = await live.call<{ change: string; status: string }>('create_tool', SLUGIFY);
    assert.ok(made.ok, JSON.stringify(made));
    assert.equal(made.value.status, 'pending');
    const before = await live.call('made.slugify', { title: 'Hello, World!' });
    assert.equal(before.ok, false, 'not in force before a person approves it');

    const approved = await runCli(['approve', made.value.change, '--data', data], work);
    assert.equal(approved.code, 0, approved.err);
    const t0 = performance.now();
    const activated = await live.waitFor('the approval to reach the running system', (e) => e.event === 'change:activated' && e.change?.id === made.value.change);
    process.stderr.write(`approval seen by the running system ${(activated.seenAt - t0).toFixed(0)} ms after the CLI exited\n`);
    assert.ok(live.events.some((e) => e.event === 'change:approved' && e.change?.id === made.value.change), 'the approval is told there too');
    const called = await live.call<string>('made.slugify', { title: 'Hello, World!' });
    assert.ok(called.ok && called.value === 'hello-world', `the running system serves the approved tool without a restart: ${JSON.stringify(called)}`);

    const retired = await runCli(['call', 'retire_tool', '{"name":"slugify"}', '--data', data], work);
    assert.equal(retired.code, 0, retired.err);
    assert.equal(JSON.parse(retired.out).value.status, 'retired');
    await live.waitFor('the retirement to reach the running system', (e) => e.event === 'change:activated' && e.change?.target === 'made.slugify' && e.change.version === null);
    const after = await live.call('made.slugify', { title: 'x' });
    assert.equal(after.ok, false);
    assert.equal((after as { error: { code: string } }).error.code, 'UNKNOWN_TOOL', 'retired there: it no longer answers here');
  } finally {
    await live.close();
  }
});

test('six armature calls in six processes trip the canary as six calls in one do: one rollback, seen by every process', { timeout: 400_000 }, async () => {
  const work = tempDir('canary');
  const data = join(work, 'data');
  const made = await runCli(['call', 'create_tool', JSON.stringify(FLAKY), '--data', data], work);
  assert.equal(made.code, 0, made.err);
  const live = await startLiveSystem(data);
  try {
    for (let i = 1; i <= 6; i++) {
      const r = await runCli(['call', 'made.flaky', '{"x":-1}', '--data', data], work);
      assert.equal(r.code, 1, `call ${i} fails`);
      assert.match(JSON.parse(r.out).error.message, /negative: -1/);
    }
    const listed = await runCli(['changes', '--json', '--data', data], work);
    const records = (JSON.parse(listed.out) as ChangeRecord[]).filter((r) => r.target === 'made.flaky');
    const rollbacks = records.filter((r) => r.action === 'rollback');
    assert.equal(rollbacks.length, 1, `one rollback: ${JSON.stringify(records.map((r) => [r.action, r.status, r.caller.via]))}`);
    assert.equal(rollbacks[0]!.caller.via, 'system');
    assert.equal(rollbacks[0]!.status, 'active');
    const first = records.find((r) => r.version === 1)!;
    assert.equal(first.status, 'rolled-back');
    assert.match(first.outcome!, /^canary: 6 of its first 6 calls failed \(more than 50% of the 10 it watches\); the last error: .*negative: -1/);

    const gone = await runCli(['call', 'made.flaky', '{"x":1}', '--data', data], work);
    assert.equal(JSON.parse(gone.out).error.code, 'UNKNOWN_TOOL', 'out of service in the next process');
    await live.waitFor('the rollback to reach the running system', (e) => e.event === 'change:rolled-back' && e.change?.id === first.id);
    const there = await live.call('made.flaky', { x: 1 });
    assert.equal((there as { error: { code: string } }).error.code, 'UNKNOWN_TOOL', 'and in the running system');
  } finally {
    await live.close();
  }
});
