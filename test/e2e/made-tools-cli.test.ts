// Agent-made tools from the command line, as a newcomer uses them, one process per command on one
// --data folder: a tool made in one process is in force in the next; the agent's own changes wait
// (the default persona asks) until `armature approve` or `armature reject` decides them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import { BAD, SLUGIFY, WORD_COUNT } from '../helpers/made-tool-fixtures.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const data = tempDir('made-cli');
let server: ScriptedModelServer;

/** Runs the CLI in a process of its own (the scripted model server lives in this one). */
const cli = (...args: string[]) => runCli([...args, '--data', data], data);

/** `armature agent` with the scripted model making `toolCalls` in its first step. */
async function agentMakes(args: Record<string, unknown>, tool = 'create_tool') {
  server.model.setScript([{ toolCalls: [{ id: 'make', name: tool, args }] }, { text: 'Made; it waits for approval.' }]);
  const r = await cli('agent', '--model', 'openai-compatible:scripted', '--base-url', server.baseURL, '--json', 'Make a tool');
  assert.equal(r.code, 0, r.err);
  const run = JSON.parse(r.out) as { toolCalls: { result: { ok: boolean; value: { change: string; status: string; hint: string } } }[] };
  return run.toolCalls[0]!.result;
}

before(async () => {
  server = await startScriptedModelServer();
});
after(() => server.close());

test('a tool made with armature call is in force in the next process: call, run (Python), tools, boot', async () => {
  const made = await cli('call', 'create_tool', JSON.stringify(SLUGIFY));
  assert.equal(made.code, 0, made.err);
  const answer = JSON.parse(made.out).value;
  assert.equal(answer.status, 'active', 'a person at the command line needs no approval');
  assert.equal(answer.name, 'made.slugify');

  const call = await cli('call', 'made.slugify', '{"title": "Two Processes"}');
  assert.equal(call.code, 0, call.err);
  assert.equal(JSON.parse(call.out).value, 'two-processes');
  const run = await cli('run', '-c', 'from tools.made import slugify\nprint(slugify(title="From The CLI"))');
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^from-the-cli$/m);
  const tools = await cli('tools');
  assert.match(tools.out, /^made\.slugify\s+MadeTools\s+Turn a title into a URL slug/m);
  const boot = await cli('boot');
  assert.equal(boot.code, 0, boot.out);
  assert.match(boot.out, /^ {2}tool:made\.slugify\s+loaded\s+v1/m);
});

test('the agent\'s change waits as pending; armature changes lists it; armature approve brings it into force for the next process', async () => {
  const result = await agentMakes(WORD_COUNT);
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.value.status, 'pending');
  const id = result.value.change;
  assert.match(result.value.hint, new RegExp(`armature approve ${id}`));

  const listed = await cli('changes');
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, new RegExp(`^${id}\\s+tool\\s+made\\.word_count\\s+create\\s+v1\\s+pending\\s+.*Counting words comes up`, 'm'));
  assert.match(listed.out, new RegExp(`1 pending: armature approve ${id}`));
  const json = JSON.parse((await cli('changes', '--json')).out) as ChangeRecord[];
  assert.deepEqual(json.filter((r) => r.status === 'pending').map((r) => [r.id, r.kind, r.target, r.version, r.caller.via]), [[id, 'tool', 'made.word_count', 1, 'agent']]);
  assert.ok(json[0]!.caller.run, 'the record names the agent run');

  const early = await cli('call', 'made.word_count', '{"text": "a b"}');
  assert.equal(early.code, 1);
  assert.equal(JSON.parse(early.out).error.code, 'UNKNOWN_TOOL', 'not in force while pending');

  const approve = await cli('approve', id);
  assert.equal(approve.code, 0, approve.err);
  assert.match(approve.out, new RegExp(`${id}: approved — tool made\\.word_count version 1 is active`));
  const call = await cli('call', 'made.word_count', '{"text": "approved on the command line"}');
  assert.equal(call.code, 0, call.err);
  assert.equal(JSON.parse(call.out).value, 5);
  const again = await cli('approve', id);
  assert.equal(again.code, 1);
  assert.match(again.err, /is active, not pending/);
});

test('armature reject refuses a pending change; the version in force stays', async () => {
  const result = await agentMakes({ name: 'slugify', code: "export default async ({ title }) => title.toUpperCase();\n", tests: [{ args: { title: 'a' }, expect: 'A' }], reason: 'shout' }, 'update_tool');
  assert.equal(result.value.status, 'pending');
  const reject = await cli('reject', result.value.change);
  assert.equal(reject.code, 0, reject.err);
  assert.match(reject.out, /rejected — tool made\.slugify version 2 is rejected/);
  assert.equal(JSON.parse((await cli('call', 'made.slugify', '{"title": "Still Dashes"}')).out).value, 'still-dashes');
  const bad = await cli('reject', 'c12345678', result.value.change);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /no change "c12345678"/);
  assert.match(bad.err, /is rejected, not pending/);
});

test('a change that was rejected is no success: armature call exits 1 and says so; armature agent marks it ✖ rejected, a pending one ◌ pending', async () => {
  const call = await cli('call', 'create_tool', JSON.stringify({ ...BAD.failingPython, name: 'char_count' }));
  assert.equal(call.code, 1, call.err);
  const answer = JSON.parse(call.out) as { ok: boolean; value: { change: string; status: string } };
  assert.deepEqual([answer.ok, answer.value.status], [true, 'rejected'], 'the call itself ran');
  assert.match(call.err, new RegExp(`armature: change ${answer.value.change} was rejected: rejected: `));

  server.model.setScript([
    { toolCalls: [{ id: 'bad', name: 'create_tool', args: { ...BAD.failingPython, name: 'letter_count' } }, { id: 'good', name: 'create_tool', args: { ...SLUGIFY, name: 'kebab' } }] },
    { text: 'One was rejected, one waits.' },
  ]);
  const r = await cli('agent', '--model', 'openai-compatible:scripted', '--base-url', server.baseURL, 'Make two tools');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /✖ create_tool rejected \(change c[0-9a-f]{8}\): rejected: \d of 3 tests? failed/);
  assert.match(r.err, /◌ create_tool pending: change (c[0-9a-f]{8}) waits for a person \(armature approve \1\)/);
  assert.doesNotMatch(r.err, /✓ create_tool/);
});
