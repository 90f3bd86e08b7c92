// `armature agent --record FILE` and `--replay FILE` through the real bin script: a live run
// against the scripted model server recorded (its key never in the file), then played back with no
// server request at all; a follow-up added to the same file; the `replay` provider named by a
// persona's model, in this process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { boot } from '../../src/index.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import { NUMBERS_FILE, SUM_ANSWER, SUM_GOAL, sumScript } from '../helpers/agent-task.ts';
import { DEFAULT_UPGRADES, withPersonas } from '../helpers/persona-overlay.ts';
import { runCli } from '../helpers/run-cli.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const KEY = 'sk-record-test-key-0123456789';
let server: ScriptedModelServer;
const dir = tempDir('replay-cli');
const file = join(dir, 'sum.jsonl');
const cli = (...args: string[]) => runCli(args, dir, { ARMATURE_API_KEY: KEY });
const model = () => ['--model', 'openai-compatible:scripted', '--base-url', server.baseURL];

before(async () => {
  server = await startScriptedModelServer();
  assert.equal((await cli('call', 'write_file', JSON.stringify(NUMBERS_FILE))).code, 0);
});
after(() => server.close());

test('--record keeps the run in a file without its key; --replay plays it back with no request to any server', async () => {
  server.model.setScript(sumScript());
  const recorded = await cli('agent', ...model(), '--record', 'sum.jsonl', SUM_GOAL);
  assert.equal(recorded.code, 0, recorded.err);
  assert.match(recorded.err, /recorded to sum\.jsonl \(replay it: armature agent --replay sum\.jsonl\)/);
  assert.equal(server.requests.at(-1)!.headers.authorization, `Bearer ${KEY}`, 'the key went to the server');
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes(KEY), 'and never into the recording');
  assert.deepEqual(text.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type), ['recording', 'turn', 'step', 'step']);

  const requests = server.requests.length;
  const replayed = await cli('agent', '--replay', 'sum.jsonl');
  assert.equal(replayed.code, 0, replayed.err);
  assert.match(replayed.out, new RegExp(SUM_ANSWER.replace(/[.;]/g, '\\$&')));
  assert.match(replayed.err, /│ sum of 5 numbers: 50/);
  assert.match(replayed.err, /✓ Replayed 1 turn of sum\.jsonl: every tool result matched the recording/);
  assert.equal(server.requests.length, requests, 'no request reached the server');

  const again = await cli('agent', ...model(), '--record', 'sum.jsonl', SUM_GOAL);
  assert.equal(again.code, 2);
  assert.match(again.err, /--record "sum\.jsonl": the file exists; record a new run into a new file \(nothing is overwritten\)/);
});

test('a follow-up recorded with --continue joins the same file; the replay plays both turns', async () => {
  const runId = (JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as { run: string }).run;
  server.model.setScript([{ text: 'It was 50.' }]);
  const next = await cli('agent', ...model(), '--continue', runId, '--record', 'sum.jsonl', 'What was the sum again?');
  assert.equal(next.code, 0, next.err);
  const requests = server.requests.length;
  const replayed = await cli('agent', '--replay', 'sum.jsonl', '--json');
  assert.equal(replayed.code, 0, replayed.err);
  const turns = JSON.parse(replayed.out) as { answer: string; replay: { turn: number; turns: number } }[];
  assert.deepEqual(turns.map((t) => [t.answer, t.replay.turn, t.replay.turns]), [[SUM_ANSWER, 1, 2], ['It was 50.', 2, 2]]);
  assert.equal(server.requests.length, requests);

  const wrong = await cli('agent', ...model(), '--continue', runId, '--record', 'other.jsonl', 'x');
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /there is no such file; a recording starts with the run's first turn/);
  const usage = await cli('agent', '--replay', 'sum.jsonl', '--model', 'openai:gpt-4o', 'x');
  assert.equal(usage.code, 2);
  assert.match(usage.err, /--replay answers from its recording: leave out --model and --base-url/);
  const missing = await cli('agent', '--replay', 'nowhere.jsonl');
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no recording "nowhere\.jsonl"[\s\S]*Replay one of the examples: examples\/sum-files, examples\/make-a-tool, examples\/build-an-upgrade/);
});

test('a persona whose model is a replay runs with no key and no network', async () => {
  const persona = { id: 'replayer', name: 'Replayer', description: 'Plays the sum-files example back.', upgrades: DEFAULT_UPGRADES, tools: ['*'], skills: ['workspace', 'python'], model: { provider: 'replay', model: 'examples/sum-files' } };
  const sys = await boot({ persona: 'replayer', platform: withPersonas(createNodePlatform({ dataDir: tempDir('replay-persona') }), [persona]) });
  try {
    const agent = await sys.resolve<AgentApi>('Agent');
    assert.deepEqual(agent.getSettings().model, { provider: 'replay', model: 'examples/sum-files' });
    const run = await agent.run({ goal: 'Add up the amounts in every CSV file under data/ and write the total to results/total.txt.' });
    assert.equal(run.reason, 'answered', JSON.stringify(run.error));
    assert.match(run.answer!, /add up to 610\.60/);
    assert.deepEqual((await agent.examples()).map((e) => [e.name, e.goals.length]), [['examples/sum-files', 1], ['examples/make-a-tool', 2], ['examples/build-an-upgrade', 2]]);
  } finally {
    await sys.dispose();
  }
});
