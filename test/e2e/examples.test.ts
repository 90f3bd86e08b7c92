// The recorded examples, replayed as a newcomer runs them, through the real bin script in fresh
// --data folders: no model, no key, every tool for real. Each must replay to the end (a change in
// what a tool answers makes it diverge: record them again with scripts/record-examples.ts). The
// approval step: without --approve the replay waits for a person, who approves and goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli, type CliResult } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const index = JSON.parse(readFileSync(new URL('../../examples/recorded.json', import.meta.url), 'utf8')) as { examples: string[] };

/** `armature ...args` in a folder of its own (its --data is `<dir>/.armature`). */
const cli = (dir: string, ...args: string[]) => runCli(args, dir);
const ok = (r: CliResult, what: string) => assert.equal(r.code, 0, `${what}:\n${r.out}\n${r.err}`);

test('the examples are the folders examples/recorded.json lists, each with its recording and a README that says it was scripted', () => {
  assert.deepEqual(index.examples, ['sum-files', 'make-a-tool', 'build-an-upgrade']);
  for (const name of index.examples) {
    const readme = readFileSync(new URL(`../../examples/${name}/README.md`, import.meta.url), 'utf8');
    assert.match(readme, /Recorded with Armature's scripted model/, name);
    assert.match(readme, new RegExp(`armature agent --replay examples/${name}`), name);
    const header = JSON.parse(readFileSync(new URL(`../../examples/${name}/recording.jsonl`, import.meta.url), 'utf8').split('\n')[0]!) as { label: string };
    assert.match(header.label, /scripted model/, name);
  }
});

test('sum-files replays: Python reads and sums the files through call_tool and writes the total', async () => {
  const dir = tempDir('example-sum');
  const r = await cli(dir, 'agent', '--replay', 'examples/sum-files');
  ok(r, 'replay');
  assert.match(r.err, /Replaying examples\/sum-files\/recording\.jsonl: Python sums files through call_tool/);
  assert.match(r.err, /\(Recorded with Armature's scripted model/);
  assert.match(r.err, /│ total: 610\.60/);
  assert.match(r.out, /The three files add up to 610\.60/);
  assert.match(r.err, /✓ Replayed 1 turn of examples\/sum-files\/recording\.jsonl: every tool result matched the recording/);
  const total = await cli(dir, 'call', 'read_file', '{"path": "results/total.txt"}');
  assert.equal(JSON.parse(total.out).value.content, '610.60\n');
});

test('make-a-tool waits for a person at the approval step; approved, the replay goes on and the tool answers', async () => {
  const dir = tempDir('example-tool');
  const first = await cli(dir, 'agent', '--replay', 'examples/make-a-tool');
  assert.equal(first.code, 1, `${first.out}\n${first.err}`);
  const pending = /◌ create_tool pending: change (c[0-9a-f]{8}) waits for a person/.exec(first.err)?.[1];
  assert.ok(pending, first.err);
  assert.match(first.err, new RegExp(`◌ The replay waits for a person: change ${pending} \\(tool made\\.word_count v1\\) is pending`));
  const go = /armature agent --replay examples\/make-a-tool --continue (run-[a-z0-9-]+)/.exec(first.err)?.[1];
  assert.ok(go, first.err);
  ok(await cli(dir, 'approve', pending), 'approve');
  const second = await cli(dir, 'agent', '--replay', 'examples/make-a-tool', '--continue', go);
  ok(second, 'the rest of the replay');
  assert.match(second.err, /│ notes\/intro\.md: 20 words/);
  assert.match(second.err, /✓ Replayed turn 2 of 2 of examples\/make-a-tool\/recording\.jsonl/);
  const call = await cli(dir, 'call', 'made.word_count', '{"text": "approved by a person"}', '--persona', 'builder');
  assert.equal(JSON.parse(call.out).value, 4);
});

test('build-an-upgrade with --approve: the blueprint, the upgrade with its card, the persona change, then its tool answers', async () => {
  const dir = tempDir('example-upgrade');
  const r = await cli(dir, 'agent', '--replay', 'examples/build-an-upgrade', '--approve');
  ok(r, 'replay');
  assert.match(r.err, /read 0x000014 Workspace - wrote 0xA00001 active/);
  assert.match(r.err, /◌ create_upgrade pending: change c[0-9a-f]{8}/);
  assert.match(r.err, /✓ approved change c[0-9a-f]{8} \(upgrade notes-index v1\): active — you approved it by running this replay with --approve/);
  assert.match(r.err, /✓ approved change c[0-9a-f]{8} \(persona builder v1\): active/);
  assert.match(r.err, /│ \{'total': 4, 'folders': \{'data': 1, 'notes': 3\}\}/);
  assert.match(r.err, /✓ Replayed 2 turns/);
  const boot = await cli(dir, 'boot', '--persona', 'builder', '--json');
  const mod = (JSON.parse(boot.out) as { modules: { id: string; state: string; widget: string | null; title?: string }[] }).modules.find((m) => m.id === 'upgrade:notes-index');
  assert.deepEqual([mod?.state, mod?.widget, mod?.title], ['loaded', 'made-upgrade-widget', 'Notes index']);
  const shown = await cli(dir, 'call', 'read_blueprint', '{"id": "0xA00001"}', '--persona', 'builder');
  assert.equal((JSON.parse(shown.out).value.body as string).match(/- \[x\]/g)?.length, 4, 'the gate proved the checklist');
});

test('a system that answers differently diverges: the step, the call, both values; exit 1', async () => {
  const dir = tempDir('example-diverge');
  ok(await cli(dir, 'call', 'write_file', JSON.stringify({ path: 'data/april.csv', content: 'date,amount\n2026-04-01,1.00\n' })), 'a fourth file');
  const r = await cli(dir, 'agent', '--replay', 'examples/sum-files');
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /armature: \[agent\] the replay of examples\/sum-files\/recording\.jsonl diverged at step 2: the result of execute_python \(call sum\) differs at \$\.value\.stdout: recorded "data\/february\.csv: 109\.85\\ndata\/january\.csv: 200\.75\\ndata\/march\.csv: 300\.00\\ntotal: 610\.60\\n", now "data\/april\.csv: 1\.00\\ndata\/february\.csv/);
  assert.match(r.err, /hint: The system answered differently than when the run was recorded/);
  // A workspace holding another version of a file the recording starts from is refused before anything runs.
  ok(await cli(dir, 'call', 'write_file', JSON.stringify({ path: 'data/march.csv', content: 'mine\n' })), 'my own march');
  const refused = await cli(dir, 'agent', '--replay', 'examples/sum-files');
  assert.equal(refused.code, 1);
  assert.match(refused.err, /starts from data\/march\.csv as it was recorded, and this workspace holds another data\/march\.csv/);
});

test('with no model configured, armature agent tells a newcomer about the recorded examples', async () => {
  const r = await cli(tempDir('example-hello'), 'agent', 'hello');
  assert.equal(r.code, 1);
  assert.match(r.err, /no model is configured/);
  assert.match(r.err, /armature agent --replay examples\/sum-files/);
});
