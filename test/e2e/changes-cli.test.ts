// `armature changes` as a person reads it, in this process (the CLI's `main` with its output
// captured) over a --data folder a booted system filled: each row says what the change does (its
// action), and a change that leaves its target without a version reads as out of service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '../../src/index.ts';
import { main } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import { SLUGIFY } from '../helpers/made-tool-fixtures.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { value } from '../helpers/tool-value.ts';

/** Runs the CLI in this process; resolves to its exit code and what it printed. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`), write: (s, t) => void (s === 'stdout' ? (out += t) : (err += t)), isTTY: false };
  const code = await main(argv, io);
  return { code, out, err };
}

test('each row names its action; a rollback waits as a rollback; the canary taking back a first version leaves it out of service', async () => {
  const data = tempDir('changes-cli');
  const sys = await boot({ platform: createNodePlatform({ dataDir: data }), config: { MadeTools: { canaryCalls: 4, canaryFailureShare: 0.5 } } });
  try {
    // A person's tool (no approval), updated, then an agent asks to roll it back: that waits.
    value(await sys.tools.executeTool('create_tool', { ...SLUGIFY, name: 'steady' }, { caller: 'cli' }));
    value(await sys.tools.executeTool('update_tool', { name: 'steady', code: "export default async ({ title }) => title.toLowerCase().split(' ').join('_');\n", tests: [{ args: { title: 'A B' }, expect: 'a_b' }] }, { caller: 'cli' }));
    const back = value(await sys.tools.executeTool<{ status: string }>('rollback_tool', { name: 'steady', version: 1, reason: 'dashes read better' }, { caller: 'agent' }));
    assert.equal(back.status, 'pending');
    // A first version that fails in use: the canary takes it back, and nothing is left in force.
    value(await sys.tools.executeTool('create_tool', { ...SLUGIFY, name: 'flaky', code: "export default async ({ title }) => { if (title.includes('!')) throw new Error('no ' + title); return title; };\n", tests: [{ args: { title: 'ok' }, expect: 'ok' }] }, { caller: 'cli' }));
    const rolled = new Promise<void>((resolve) => sys.bus.on('change:rolled-back', () => resolve()));
    for (const title of ['a!', 'b!', 'c!']) assert.equal((await sys.tools.executeTool('made.flaky', { title })).ok, false);
    await rolled;
  } finally {
    await sys.dispose();
  }

  const listed = await cli('changes', '--data', data);
  assert.equal(listed.code, 0, listed.err);
  const rows = listed.out.split('\n');
  assert.match(rows[0]!, /^id\s+kind\s+target\s+action\s+version\s+status\s+when\s+reason$/);
  assert.ok(rows.some((r) => /^c[0-9a-f]{8}\s+tool\s+made\.steady\s+rollback\s+v1\s+pending\s+.*dashes read better$/.test(r)), listed.out);
  assert.ok(rows.some((r) => /^c[0-9a-f]{8}\s+tool\s+made\.flaky\s+rollback\s+none\s+out of service\s+.*canary: 3 of its first 3 calls failed/.test(r)), listed.out);
  assert.ok(rows.some((r) => /^c[0-9a-f]{8}\s+tool\s+made\.flaky\s+create\s+v1\s+rolled-back\s/.test(r)), listed.out);
  assert.ok(!rows.some((r) => /made\.flaky\s+\S+\s+(-|none)\s+active/.test(r)), 'no row says the tool with no version is active');
});
