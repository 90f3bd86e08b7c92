// What an agent, a model or Python prints cannot drive the terminal: through the real bin script,
// the bytes `armature run`, `armature call` and `armature agent` write hold no ESC, BEL or C1 byte
// from that data (CSI cursor moves, OSC 0 title, OSC 8 links, OSC 52 clipboard) — they are shown.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** A character a terminal acts on (every C0 but `\n` and `\t`, DEL, C1). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** The attacks as Python source (escapes Python decodes): rewrite the line above, set the title, write the clipboard, an OSC 8 link, 8-bit CSI. */
const PY_ATTACKS = [
  '\\x1b[1A\\x1b[2K✓ change c1 approved by a person',
  '\\x1b]0;owned\\x07',
  '\\x1b]52;c;cHduZWQ=\\x07',
  '\\x1b]8;;https://evil.example\\x1b\\\\click\\x1b]8;;\\x1b\\\\',
  '\\x9b2J\\rgone',
];
const PYTHON = [...PY_ATTACKS.map((a) => `print("${a}")`), 'import sys', 'sys.stderr.write("\\x1b]0;stderr title\\x07\\n")', 'raise ValueError("\\x1b[2J cleared")'].join('\n');

const data = tempDir('terminal-injection');
let server: ScriptedModelServer;

before(async () => {
  server = await startScriptedModelServer();
});
after(() => server.close());

/** Asserts nothing in `text` would act on a terminal, and says which command printed it. */
function assertInert(text: string, what: string): void {
  const at = RAW_CONTROL.exec(text);
  assert.equal(at, null, `${what} printed a raw control character ${JSON.stringify(at?.[0])} at ${at?.index}: ${JSON.stringify(text.slice(Math.max(0, (at?.index ?? 0) - 40), (at?.index ?? 0) + 40))}`);
}

test('armature run: Python\'s stdout, stderr and traceback show their escape sequences instead of obeying them', async () => {
  const r = await runCli(['run', '-c', PYTHON, '--data', data], data);
  assert.equal(r.code, 1, r.err);
  assertInert(r.out, 'run (stdout)');
  assertInert(r.err, 'run (stderr)');
  assert.match(r.out, /\\x1b\[1A\\x1b\[2K✓ change c1 approved by a person/);
  assert.match(r.out, /\\x1b\]52;c;cHduZWQ=\\x07/);
  assert.match(r.out, /\\u009b2J\\x0dgone/);
  assert.match(r.err, /\\x1b\]0;stderr title\\x07/);
  assert.match(r.err, /ValueError: \\x1b\[2J cleared/);
});

test('armature call: the JSON result stays valid JSON and means the same, with no raw control byte', async () => {
  const r = await runCli(['call', 'execute_python', JSON.stringify({ code: PYTHON.replace(/\nraise .*$/, '') }), '--data', data], data);
  assert.equal(r.code, 0, r.err);
  assertInert(r.out + r.err, 'call');
  const stdout = (JSON.parse(r.out) as { value: { stdout: string } }).value.stdout;
  assert.ok(stdout.includes('\u001b[1A\u001b[2K✓ change c1 approved by a person'), 'the value is the one Python printed');
  assert.ok(stdout.includes('\u009b2J'), 'C1 characters come back as themselves once the JSON is read');
});

test('armature agent: streamed model text, tool lines, Python output and errors show escape sequences; --json stays valid', async () => {
  const script = () => [
    {
      text: ['Working.\u001b[1A', '\u001b[2K✓ approved', ' \u001b]0;owned\u0007', '\u001b]52;c;cHduZWQ=\u0007', ' \u009b2J'],
      toolCalls: [{ name: 'execute_python', args: { code: PYTHON } }],
    },
    { text: ['Done \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007', '.'] },
  ];
  server.model.setScript(script());
  const args = ['agent', '--model', 'openai-compatible:scripted', '--base-url', server.baseURL, '--data', data];
  const r = await runCli([...args, 'print things'], data);
  assert.equal(r.code, 0, r.err);
  assertInert(r.out, 'agent (stdout)');
  assertInert(r.err, 'agent (stderr)');
  assert.match(r.out, /Working\.\\x1b\[1A\\x1b\[2K✓ approved \\x1b\]0;owned\\x07\\x1b\]52;c;cHduZWQ=\\x07 \\u009b2J/);
  assert.match(r.err, /│ \\x1b\[1A\\x1b\[2K✓ change c1 approved by a person/);
  assert.match(r.err, /✖ execute_python ValueError: [^\n]*\\x1b\[2J cleared/);

  server.model.setScript(script());
  const json = await runCli([...args, '--json', 'print things'], data);
  assert.equal(json.code, 0, json.err);
  assertInert(json.out + json.err, 'agent --json');
  const run = JSON.parse(json.out) as { answer: string };
  assert.equal(run.answer, 'Done \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007.');
});

test('armature runs, runs show, agent --continue and a replay of a recording show what the model and Python wrote, inert', async () => {
  const TITLE = '\u001b]0;owned\u0007';
  server.model.setScript([
    { text: ['Start \u001b[1A', `\u001b[2K✓ approved${TITLE}`], toolCalls: [{ name: 'execute_python', args: { code: 'print("\\x1b]52;c;cHduZWQ=\\x07 \\x9b2J")' } }] },
    { text: ['Done \u001b[2J', '.'] },
  ]);
  const args = ['--model', 'openai-compatible:scripted', '--base-url', server.baseURL, '--data', data];
  const first = await runCli(['agent', ...args, '--json', '--record', 'inert.jsonl', `goal ${TITLE}`], data);
  assert.equal(first.code, 0, first.err);
  const { runId } = JSON.parse(first.out) as { runId: string };

  const runs = await runCli(['runs', '--data', data], data);
  assert.equal(runs.code, 0, runs.err);
  assertInert(runs.out + runs.err, 'runs');
  assert.match(runs.out, new RegExp(`${runId} .*goal \\\\x1b\\]0;owned\\\\x07`));

  const shown = await runCli(['runs', 'show', runId, '--data', data], data);
  assert.equal(shown.code, 0, shown.err);
  assertInert(shown.out + shown.err, 'runs show');
  assert.match(shown.out, /Start \\x1b\[1A\\x1b\[2K✓ approved\\x1b\]0;owned\\x07/);
  assert.match(shown.out, /│ \\x1b\]52;c;cHduZWQ=\\x07 \\u009b2J/);

  server.model.setScript([{ text: ['Again \u001b]8;;https://evil.example\u0007', 'link\u009b2J'] }]);
  const more = await runCli(['agent', ...args, '--continue', runId, 'more'], data);
  assert.equal(more.code, 0, more.err);
  assertInert(more.out + more.err, 'agent --continue');
  assert.match(more.out, /Again \\x1b\]8;;https:\/\/evil\.example\\x07link\\u009b2J/);

  const replayed = await runCli(['agent', '--replay', 'inert.jsonl', '--data', data], data);
  assert.equal(replayed.code, 0, replayed.err);
  assertInert(replayed.out + replayed.err, 'agent --replay');
  assert.match(replayed.err, /You: goal \\x1b\]0;owned\\x07/);
  assert.match(replayed.out, /Done \\x1b\[2J\./);
  assert.match(replayed.err, /│ \\x1b\]52;c;cHduZWQ=\\x07 \\u009b2J/);
});
