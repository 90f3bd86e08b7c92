// A provider that echoes the key: split across streamed text pieces, and inside tool-call
// arguments (Python code that prints it, a tool made with it, a file written with it). The key is
// masked in everything: what `armature agent` prints, the `agent:*`, `python:*`, `tool:*` and
// `change:*` events, the transcript, the change store and every other file under the data folder —
// the tools run with the masked value. Real server on 127.0.0.1, real boot, real CLI process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptTurn } from '../helpers/scripted-model-server.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const KEY = 'sk-MARKER-abc123XYZ';
/** Any of these in output or a file means the key (or a recognisable part of it) leaked. */
const FRAGMENTS = [KEY, 'MARKER-abc', 'abc123XYZ', 'KER-abc1'];

/** The model echoes the key both ways: split across its streamed text, and in the arguments of three tool calls. */
const echoScript = (): ScriptTurn[] => [
  {
    text: ['Your key is sk-MAR', 'KER-abc1', '23XYZ', ', I will use it.'],
    toolCalls: [
      { id: 'py', name: 'execute_python', args: { code: `print("echo ${KEY}")\n"${KEY}"` } },
      {
        id: 'made',
        name: 'create_tool',
        args: {
          name: 'keyed',
          description: `Answers ${KEY}.`,
          language: 'python',
          input_schema: { type: 'object', properties: {} },
          code: `def keyed():\n    return "${KEY}"\n`,
          tests: [{ args: {}, expect: KEY }],
          reason: `It keeps ${KEY} handy.`,
        },
      },
    ],
  },
  { toolCalls: [{ id: 'file', name: 'execute_python', args: { code: `from tools.workspace import write_file\nwrite_file(path="notes/key.txt", content="${KEY}")` } }] },
  { text: ['Done: sk-', 'MARKER-', 'abc123', 'XYZ is ', 'safe.'] },
];

let server: ScriptedModelServer;
before(async () => {
  server = await startScriptedModelServer();
});
after(() => server.close());

/** Every file under `dir` (the Python snapshot included) that holds a fragment of the key, with the fragment. */
function filesWithKey(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        for (const f of FRAGMENTS) if (bytes.includes(f)) found.push(`${path}: ${f}`);
      }
    }
  };
  walk(dir);
  return found;
}

function assertNoKey(text: string, what: string): void {
  for (const f of FRAGMENTS) assert.ok(!text.includes(f), `${what} holds ${JSON.stringify(f)}: ${text.slice(Math.max(0, text.indexOf(f) - 80), text.indexOf(f) + 80)}`);
}

test('in process: events (text pieces joined), the run, the transcript, the pending change and the written file hold the mask, never the key', async () => {
  const data = tempDir('key-echo-api');
  const sys: ArmatureSystem = await boot({ dataDir: data, historySize: 50_000, config: { Agent: { env: { ARMATURE_API_KEY: KEY } } } });
  try {
    const agent = await sys.resolve<AgentApi>('Agent');
    server.model.setScript(echoScript());
    const r = await agent.run({ goal: 'use my key', model: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL } });
    assert.equal(r.reason, 'answered', JSON.stringify(r.error));
    assert.equal(server.requests.at(-1)!.headers.authorization, `Bearer ${KEY}`, 'the key did go to the provider');

    const events = sys.bus.history();
    const deltas = events.filter((e) => e.type === 'agent:text-delta').map((e) => (e.payload as { delta: string }).delta).join('');
    assert.equal(deltas, 'Your key is [redacted key], I will use it.Done: [redacted key] is safe.');
    assertNoKey(JSON.stringify(events), 'the events');
    const stdout = events.filter((e) => e.type === 'python:stdout').map((e) => (e.payload as { chunk: string }).chunk).join('');
    assert.match(stdout, /echo \[redacted key\]/, 'Python ran the masked code');
    const made = r.toolCalls.find((c) => c.name === 'create_tool')!;
    assert.equal((made.result as { value: { status: string } }).value.status, 'pending', JSON.stringify(made.result));
    assert.ok(events.some((e) => e.type === 'change:proposed'), 'the change path saw the call');
    assertNoKey(JSON.stringify(r), 'the run result');
    assertNoKey(JSON.stringify(agent.readRun(r.runId)), 'the transcript');
    const written = await sys.tools.executeTool<{ content: string }>('read_file', { path: 'notes/key.txt' });
    assert.equal(written.ok && written.value.content, '[redacted key]', 'the tool ran with the masked value');
  } finally {
    await sys.dispose();
  }
  assert.deepEqual(filesWithKey(data), [], 'no file under the data folder holds the key');
});

test('armature agent: stdout and stderr show the mask where the key was echoed, and nothing it wrote holds the key', async () => {
  const data = tempDir('key-echo-cli');
  server.model.setScript(echoScript());
  const r = await runCli(['agent', '--model', 'openai-compatible:scripted', '--base-url', server.baseURL, '--data', data, 'use my key'], data, { ARMATURE_API_KEY: KEY });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Your key is \[redacted key\], I will use it\./);
  assert.match(r.err, /│ echo \[redacted key\]/);
  assertNoKey(r.out, 'stdout');
  assertNoKey(r.err, 'stderr');
  assert.deepEqual(filesWithKey(data), [], 'no file under the data folder holds the key');
});
