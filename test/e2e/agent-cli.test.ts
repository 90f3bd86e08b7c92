// `armature agent` as a newcomer runs it, through the real bin script, against the scripted
// OpenAI-compatible server on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NUMBERS_FILE, RESULT_FILE, SUM_ANSWER, SUM_GOAL, sumScript } from '../helpers/agent-task.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const KEY = 'sk-cli-test-key-9876543210';
let server: ScriptedModelServer;
const data = tempDir('agent-cli');

/** Runs the CLI without blocking this process (the scripted server lives here). */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, data, env);

const modelArgs = () => ['--model', 'openai-compatible:scripted', '--base-url', server.baseURL, '--data', data];

before(async () => {
  server = await startScriptedModelServer();
  const w = await cli(['call', 'write_file', JSON.stringify(NUMBERS_FILE), '--data', data]);
  assert.equal(w.code, 0, w.err);
});
after(() => server.close());

test('agent streams the answer and one line per tool call (Python output under it), exit 0; the result file is written', async () => {
  server.model.setScript(sumScript());
  const r = await cli(['agent', ...modelArgs(), SUM_GOAL]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /I will compute it in Python\./);
  assert.match(r.out, new RegExp(SUM_ANSWER.replace(/[.;]/g, '\\$&')));
  assert.match(r.err, /→ execute_python \{"code":"numbers = /);
  // The agent's runs are a session: Python starts for it in the pool, and the newcomer is told.
  assert.match(r.err, /→ execute_python [^\n]*\n\s*… starting Python \(its first run takes a few seconds\)\n/);
  assert.match(r.err, /│ sum of 5 numbers: 50/);
  assert.match(r.err, /✓ execute_python ok \(\d+ ms\)/);
  assert.match(r.err, /\[answered · 2 steps · 1900 in \/ 75 out tokens · run-/);
  const file = await cli(['call', 'read_file', JSON.stringify({ path: RESULT_FILE.path }), '--data', data]);
  assert.equal(JSON.parse(file.out).value.content, RESULT_FILE.content);
});

test('--json prints the finished run alone on stdout', async () => {
  server.model.setScript(sumScript());
  const r = await cli(['agent', ...modelArgs(), '--json', SUM_GOAL]);
  assert.equal(r.code, 0, r.err);
  const run = JSON.parse(r.out);
  assert.equal(run.reason, 'answered');
  assert.equal(run.answer, SUM_ANSWER);
  assert.deepEqual(run.usage, { inputTokens: 1900, outputTokens: 75 });
  assert.deepEqual(run.toolCalls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [['execute_python', true]]);
  assert.ok(run.messages.length >= 4);
});

test('armature runs lists the runs; runs show prints one; agent --continue goes on with it, the model getting the earlier messages', async () => {
  const listed = await cli(['runs', '--data', data]);
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, /^run\s+when\s+turns\s+steps\s+tokens in\/out\s+ended\s+goal$/m);
  const runs = JSON.parse((await cli(['runs', '--json', '--data', data])).out) as { runId: string; goal: string; reason: string; turns: number }[];
  const first = runs.find((r) => r.goal === SUM_GOAL && r.reason === 'answered')!;
  assert.ok(first, JSON.stringify(runs));
  assert.match(listed.out, new RegExp(`^${first.runId}\\s+\\S+ \\S+\\s+1\\s+2\\s+1900/75\\s+answered\\s+Add up the numbers`, 'm'));

  const shown = await cli(['runs', 'show', first.runId, '--data', data]);
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, new RegExp(`^You: ${SUM_GOAL.replace(/[.]/g, '\\.')}$`, 'm'));
  assert.match(shown.out, /^ {2}I will compute it in Python\.$/m);
  assert.match(shown.out, /^ {2}→ execute_python \{"code":"numbers = /m);
  assert.match(shown.out, /^ {4}│ sum of 5 numbers: 50$/m);
  assert.match(shown.out, /^ {2}✓ execute_python ok \(\d+ ms\)$/m);
  assert.match(shown.out, /^ {2}\[answered · 2 steps · 1900 in \/ 75 out tokens\]$/m);
  assert.match(shown.out, new RegExp(`Continue it: armature agent --continue ${first.runId} "\\.\\.\\."`));
  const asJson = JSON.parse((await cli(['runs', 'show', first.runId, '--json', '--data', data])).out) as { entries: { type: string }[] };
  assert.deepEqual(asJson.entries.map((e) => e.type), ['started', 'assistant', 'tool', 'assistant', 'finished']);

  server.model.setScript([{ text: 'It was 50.' }]);
  const seen = server.requests.length;
  const next = await cli(['agent', ...modelArgs(), '--continue', first.runId, 'What was the sum again?']);
  assert.equal(next.code, 0, next.err);
  assert.match(next.out, /It was 50\./);
  assert.match(next.err, new RegExp(`\\[answered · 1 step · 100 in / 10 out tokens · ${first.runId}\\]`));
  // At the wire: the model was sent the whole conversation, then the follow-up.
  const sent = server.requests[seen]!.body.messages;
  assert.deepEqual(sent.filter((m) => m.role !== 'system').map((m) => m.role), ['user', 'assistant', 'tool', 'assistant', 'user']);
  assert.deepEqual(sent.filter((m) => m.role === 'user').map((m) => m.content), [SUM_GOAL, 'What was the sum again?']);
  assert.equal(sent.find((m) => m.role === 'assistant')!.tool_calls![0]!.function.name, 'execute_python');
  assert.match(String(sent.find((m) => m.role === 'tool')!.content), /sum of 5 numbers: 50/);
  const after = JSON.parse((await cli(['runs', '--json', '--data', data])).out) as { runId: string; turns: number }[];
  assert.equal(after.find((r) => r.runId === first.runId)!.turns, 2);

  const gone = await cli(['agent', ...modelArgs(), '--continue', 'run-20000101-000000-nosuch', 'hello']);
  assert.equal(gone.code, 1);
  assert.match(gone.err, /no run "run-20000101-000000-nosuch"/);
  const missing = await cli(['runs', 'show', 'run-20000101-000000-nosuch', '--data', data]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no run "run-20000101-000000-nosuch"[\s\S]*armature runs lists the runs/);
});

test('a provider error and maxSteps exit 1 with a readable message; the key never shows', async () => {
  server.model.setScript([{ status: 401, body: { error: { message: `bad key ${KEY}` } } }]);
  const refused = await cli(['agent', ...modelArgs(), 'hello'], { ARMATURE_API_KEY: KEY });
  assert.equal(refused.code, 1);
  assert.match(refused.err, /armature: \[agent\] the provider refused the key \(HTTP 401/);
  assert.match(refused.err, /hint: Set ARMATURE_API_KEY/);
  assert.ok(!(refused.out + refused.err).includes(KEY));
  assert.equal(server.requests.at(-1)!.headers.authorization, `Bearer ${KEY}`);

  server.model.setScript(Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'list_skills', args: {} }] })));
  const capped = await cli(['agent', ...modelArgs(), '--max-steps', '2', 'loop forever']);
  assert.equal(capped.code, 1);
  assert.match(capped.err, /stopped after 2 steps without a final answer/);
  assert.match(capped.err, /\[max-steps · 2 steps/);
});

test('bad usage exits 2 with the reason', async () => {
  const cases: [string[], RegExp][] = [
    [['agent'], /agent needs a goal/],
    [['agent', 'two', 'goals'], /agent takes one goal; quote it/],
    [['agent', '--model', 'gpt-4o', 'x'], /--model takes PROVIDER:MODEL/],
    [['agent', '--max-steps', '0', 'x'], /--max-steps takes a whole number from 1 to 100/],
    [['agent', '--base-url', 'localhost:11434', 'x'], /--base-url takes an http\(s\) URL/],
    [['agent', '--continue', 'yesterday', 'x'], /--continue takes a run id such as run-20260101-120000-a1b2c3/],
    [['runs', '--continue', 'run-x', '--data', data], /--continue applies to agent, not to runs/],
    [['runs', 'list', '--data', data], /runs takes no arguments, or show RUN/],
    [['runs', 'show', '--data', data], /runs show takes one run id/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message);
  }
  const noAgent = await cli(['agent', '--persona', 'reader', '--data', data, 'x']);
  assert.equal(noAgent.code, 2);
  assert.match(noAgent.err, /persona reader does not load Agent, which runs agents: add "Agent" to "upgrades" in modules\/personas\/reader\.json/);
});
