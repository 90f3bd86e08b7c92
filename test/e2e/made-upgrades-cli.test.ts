// The notes index from the command line, as a newcomer builds it, one process per command on one
// --data folder under the default persona: a person's own changes need no approval; the upgrade is
// a module in `armature boot`, its tool works with `armature call` and from `armature run`; an
// agent's update waits until `armature approve`; `armature boot --safe` leaves it out and lists it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import { MARKDOWN_ONLY_CODE, NOTES_INDEX_BLUEPRINT, notesIndexUpgrade } from '../helpers/made-upgrade-fixtures.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const data = tempDir('made-upgrades-cli');
let server: ScriptedModelServer;

/** Runs the CLI in a process of its own. */
const cli = (...args: string[]) => runCli([...args, '--data', data], data);

/** `armature call TOOL ARGS`: its parsed value (the call must succeed). */
async function call<T = Record<string, unknown>>(tool: string, args: unknown): Promise<T> {
  const r = await cli('call', tool, JSON.stringify(args));
  assert.equal(r.code, 0, `${tool}: ${r.out}${r.err}`);
  return JSON.parse(r.out).value as T;
}

before(async () => {
  server = await startScriptedModelServer();
});
after(() => server.close());

test('a person builds the notes index with armature call; each process after has it: call, run (Python), boot', async () => {
  await call('write_file', { path: 'notes/plan.md', content: '# Plan' });
  await call('write_file', { path: 'notes/draft.txt', content: 'draft' });
  const bp = await call<{ id: string; status: string }>('create_blueprint', NOTES_INDEX_BLUEPRINT);
  assert.deepEqual([bp.id, bp.status], ['0xA00001', 'active'], 'a person at the command line needs no approval');
  const up = await call<{ status: string; tests: { ok: boolean }[] }>('create_upgrade', notesIndexUpgrade(bp.id));
  assert.equal(up.status, 'active', JSON.stringify(up));
  const persona = await call<{ status: string }>('update_persona', { add_upgrades: ['notes-index'] });
  assert.equal(persona.status, 'active');

  assert.deepEqual(await call('notes_index.notes_summary', {}), { total: 2, folders: { notes: 2 } });
  const run = await cli('run', '-c', 'from tools.notes_index import notes_summary, folder_of\nprint(notes_summary(folder="notes")["files"], folder_of(path="a/b.md"))');
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^2 a$/m);
  const boot = await cli('boot');
  assert.equal(boot.code, 0, boot.out);
  assert.match(boot.out, /^ {2}upgrade:notes-index\s+loaded\s+v1/m);
  assert.match(boot.out, /Persona overlay v1 \(c[0-9a-f]{8}, made by an agent\): runs notes-index\. armature boot --safe boots without it\./);
  const tools = await cli('tools');
  assert.match(tools.out, /^notes_index\.notes_summary\s+MadeUpgrades\s+How many workspace files/m);
});

test('an agent\'s update waits for approval; armature approve swaps it in for the next process', async () => {
  server.model.setScript([
    { toolCalls: [{ id: 'update', name: 'update_upgrade', args: { id: 'notes-index', code: MARKDOWN_ONLY_CODE, reason: 'count Markdown notes only\u001b[2J' } }] },
    { text: 'The update waits for your approval.' },
  ]);
  const r = await cli('agent', '--model', 'openai-compatible:scripted', '--base-url', server.baseURL, '--json', 'Count only Markdown notes');
  assert.equal(r.code, 0, r.err);
  const answer = (JSON.parse(r.out) as { toolCalls: { result: { value: { change: string; status: string; hint: string; tests: unknown[] } } }[] }).toolCalls[0]!.result.value;
  assert.equal(answer.status, 'pending', JSON.stringify(answer));
  assert.match(answer.hint, new RegExp(`armature approve ${answer.change}`));
  const listed = await cli('changes');
  assert.match(listed.out, new RegExp(`^${answer.change}\\s+upgrade\\s+notes-index\\s+update\\s+v2\\s+pending\\s+.*count Markdown notes only`, 'm'));
  assert.doesNotMatch(listed.out, /\u001b/, 'the agent\'s reason reaches the terminal without its escape sequence');
  assert.match(listed.out, /^c[0-9a-f]{8}\s+persona\s+default\s+create\s+v1\s+active/m);
  assert.deepEqual(await call('notes_index.notes_summary', {}), { total: 2, folders: { notes: 2 } }, 'v1 until approved');
  const approved = await cli('approve', answer.change);
  assert.equal(approved.code, 0, approved.err);
  assert.deepEqual(await call('notes_index.notes_summary', {}), { total: 1, folders: { notes: 1 } });
  const json = JSON.parse((await cli('changes', '--json')).out) as ChangeRecord[];
  assert.deepEqual(json.filter((c) => c.kind === 'upgrade').map((c) => [c.version, c.status, c.caller.via, c.approver]), [[2, 'active', 'agent', 'cli'], [1, 'superseded', 'cli', 'cli']]);
});

test('armature boot --safe boots only the persona file\'s upgrades and lists the agent-made changes for review', async () => {
  const safe = await cli('boot', '--safe');
  assert.equal(safe.code, 0, safe.out);
  assert.match(safe.out, /^Persona default \(Default agent\) in safe mode: 11 of 11 modules loaded/m);
  assert.doesNotMatch(safe.out, /upgrade:notes-index/);
  assert.match(safe.out, /Safe mode: only what modules\/personas\/default\.json names was loaded\. Agent-made changes in force, not loaded, for review:/);
  for (const line of [/c[0-9a-f]{8} {2}blueprint 0xA00001 v1/, /c[0-9a-f]{8} {2}upgrade notes-index v2 — count Markdown notes only/, /c[0-9a-f]{8} {2}persona default v1/]) assert.match(safe.out, line);
  assert.doesNotMatch(safe.out, /\u001b/, 'the agent\'s reason reaches the terminal without its escape sequence');
  const call = await cli('call', 'notes_index.notes_summary', '{}', '--safe');
  assert.equal(call.code, 1);
  assert.match(JSON.parse(call.out).error.code, /UNKNOWN_TOOL/);
  // A person takes it out while in safe mode; the next normal boot runs without it.
  const retired = await cli('call', 'retire_upgrade', '{"id": "notes-index", "reason": "reviewed: not now"}', '--safe');
  assert.equal(retired.code, 0, retired.out);
  assert.equal(JSON.parse(retired.out).value.status, 'retired');
  const normal = await cli('boot');
  assert.equal(normal.code, 0, normal.out);
  assert.doesNotMatch(normal.out, /upgrade:notes-index/);
});
