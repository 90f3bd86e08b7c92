// The agent end to end in Node: the default persona booted for real (Pyodide in a worker, the
// workspace on disk) talking to a real HTTP server on 127.0.0.1 that speaks the OpenAI
// chat-completions protocol with SSE and replays a scripted model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import { NUMBERS_FILE, RESULT_FILE, SUM_ANSWER, SUM_GOAL, SUM_STDOUT, sumScript } from '../helpers/agent-task.ts';
import { startScriptedModelServer, unusedPort, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const KEY = 'sk-local-e2e-0123456789abcdef';
let sys: ArmatureSystem;
let agent: AgentApi;
let server: ScriptedModelServer;

before(async () => {
  // A provider key in the process environment, as the CLI has it: Python must not see it.
  process.env.ARMATURE_E2E_PROVIDER_API_KEY = KEY;
  server = await startScriptedModelServer();
  sys = await boot({ dataDir: tempDir('agent-e2e'), historySize: 20_000, config: { Agent: { env: { ARMATURE_API_KEY: KEY } } } });
  agent = await sys.resolve<AgentApi>('Agent');
  const w = await sys.tools.executeTool('write_file', NUMBERS_FILE);
  assert.equal(w.ok, true);
});
after(async () => {
  delete process.env.ARMATURE_E2E_PROVIDER_API_KEY;
  await sys.dispose();
  await server.close();
});

const model = () => ({ provider: 'openai-compatible' as const, model: 'scripted', baseURL: server.baseURL });

test('the model calls execute_python, which reads a workspace file through call_tool, computes and writes the result; then it answers', async () => {
  server.model.setScript(sumScript());
  const before = server.requests.length;
  const r = await agent.run({ goal: SUM_GOAL, model: model() });
  assert.equal(r.reason, 'answered', JSON.stringify(r.error));
  assert.equal(r.answer, SUM_ANSWER);
  assert.equal(r.steps, 2);
  assert.deepEqual(r.usage, { inputTokens: 1900, outputTokens: 75 });

  // What the server received: the system prompt, the code-mode tools, then the tool result with stdout.
  const [first, second] = server.requests.slice(before);
  assert.ok(first && second, 'two requests');
  assert.equal(first.headers.authorization, `Bearer ${KEY}`);
  assert.equal(first.body.stream, true);
  const system = first.body.messages[0]!;
  assert.equal(system.role, 'system');
  assert.match(String(system.content), /Work in Python: call `execute_python` with code/);
  // The workspace's tools are offered as Python functions (at whatever detail the prompt affords).
  assert.match(String(system.content), /^workspace: .*read_file/m);
  assert.match(String(system.content), /reply with the answer in plain text/);
  assert.deepEqual(first.body.messages[1], { role: 'user', content: SUM_GOAL });
  // execute_python, the skill tools, and the tools Python cannot call (create_tool and the like).
  const native = sys.tools.getToolDeclarations().filter((d) => !d.pythonCallable).map((d) => d.name);
  assert.deepEqual(first.body.tools!.map((t) => t.function.name).sort(), [...new Set(['execute_python', 'list_skills', 'read_skill', ...native])].sort());
  assert.ok(native.includes('create_tool'));
  const py = first.body.tools!.find((t) => t.function.name === 'execute_python')!.function;
  assert.deepEqual((py.parameters as { required: string[] }).required, ['code']);
  const toolMsg = second.body.messages.find((m) => m.role === 'tool')!;
  assert.equal(toolMsg.tool_call_id, 'call_sum');
  assert.deepEqual(JSON.parse(String(toolMsg.content)), { ok: true, value: { value: 50, stdout: SUM_STDOUT, stderr: '', executionTime: (JSON.parse(String(toolMsg.content)) as { value: { executionTime: number } }).value.executionTime } });
  const assistant = second.body.messages.find((m) => m.role === 'assistant')!;
  assert.equal(assistant.tool_calls![0]!.function.name, 'execute_python');

  // What the workspace holds after.
  const file = await sys.tools.executeTool<{ content: string }>('read_file', { path: RESULT_FILE.path });
  assert.equal(file.ok && file.value.content, RESULT_FILE.content);

  // The calls went through the ToolRunner: execute_python as the agent, the file tools from Python.
  const calls = sys.bus.history(['tool:finished']).map((e) => e.payload).filter((p) => p.callId.startsWith(r.runId) || p.caller === 'python');
  assert.ok(calls.some((c) => c.name === 'execute_python' && c.caller === 'agent' && c.ok));
  assert.ok(calls.some((c) => c.name === 'read_file' && c.caller === 'python'));
  assert.ok(calls.some((c) => c.name === 'write_file' && c.caller === 'python'));

  // The Python stdout is tagged with the call, so it can be shown under it.
  const called = sys.bus.history(['agent:tool-called']).map((e) => e.payload).find((p) => p.runId === r.runId)!;
  const stdout = sys.bus.history(['python:stdout']).filter((e) => e.payload.runId === called.pythonRunId).map((e) => e.payload.chunk).join('');
  assert.equal(stdout, SUM_STDOUT);

  // The transcript, through the tools; the key is nowhere.
  const runs = await sys.tools.executeTool<{ runs: { runId: string; reason: string; goal: string }[] }>('list_runs', {});
  assert.ok(runs.ok);
  assert.deepEqual(runs.value.runs.find((x) => x.runId === r.runId), { ...runs.value.runs.find((x) => x.runId === r.runId), reason: 'answered', goal: SUM_GOAL });
  const read = await sys.tools.executeTool<{ entries: { type: string }[] }>('read_run', { runId: r.runId });
  assert.ok(read.ok);
  assert.deepEqual(read.value.entries.map((e) => e.type), ['started', 'assistant', 'tool', 'assistant', 'finished']);
  const files = await sys.tools.executeTool<{ files: { path: string }[] }>('list_files', {});
  assert.ok(files.ok && !files.value.files.some((f) => f.path.includes('run-')), 'transcripts are hidden from file tools');
  assert.ok(!JSON.stringify(sys.bus.history()).includes(KEY));
  assert.ok(!JSON.stringify(read.value).includes(KEY));

  // A follow-up continues the same run with its history.
  server.model.setScript([{ text: 'It was 50.' }]);
  const follow = await agent.run({ goal: 'What was the sum again?', runId: r.runId, model: model() });
  assert.equal(follow.answer, 'It was 50.');
  const last = server.requests.at(-1)!.body.messages;
  assert.deepEqual(last.filter((m) => m.role === 'user').map((m) => m.content), [SUM_GOAL, 'What was the sum again?']);
});

test('a refused key (401) is readable, names the variable, and the key is redacted from what the provider echoed', async () => {
  server.model.setScript([{ status: 401, body: { error: { message: `Invalid API key: ${KEY}`, type: 'invalid_request_error' } } }]);
  const r = await agent.run({ goal: 'hello', model: model() });
  assert.equal(r.reason, 'error');
  assert.equal(r.error?.code, 'MODEL_AUTH_FAILED');
  assert.match(r.error!.message, /the provider refused the key \(HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\): Invalid API key: \[redacted key\]/);
  assert.match(r.error!.hint!, /Set ARMATURE_API_KEY/);
  assert.ok(!JSON.stringify(sys.bus.history()).includes(KEY));
  assert.ok(!JSON.stringify(agent.readRun(r.runId)).includes(KEY));
});

test('429 is retried with backoff (announced), and reported once the retries are spent', async () => {
  const limited = { status: 429, headers: { 'retry-after-ms': '30' }, body: { error: { message: 'slow down' } } };
  server.model.setScript([limited, limited, { text: 'finally' }]);
  const r = await agent.run({ goal: 'hi', model: model() });
  assert.equal(r.answer, 'finally');
  const failed = sys.bus.history(['agent:request-failed']).map((e) => e.payload).filter((p) => p.runId === r.runId);
  assert.deepEqual(failed.map((f) => [f.status, f.attempt, f.willRetry]), [[429, 1, true], [429, 2, true]]);

  server.model.setScript([limited, limited, limited]);
  const gaveUp = await agent.run({ goal: 'hi', model: model() });
  assert.equal(gaveUp.error?.code, 'MODEL_RATE_LIMITED');
  assert.match(gaveUp.error!.message, /HTTP 429 .* after 3 attempts: slow down/);
});

test('an unreachable base URL is reported at once, naming the URL; the system keeps working', async () => {
  const url = `http://127.0.0.1:${await unusedPort()}/v1`;
  const r = await agent.run({ goal: 'hi', model: { ...model(), baseURL: url } });
  assert.equal(r.error?.code, 'MODEL_UNREACHABLE');
  assert.match(r.error!.message, new RegExp(`cannot reach the model at ${url.replace(/[./]/g, '\\$&')}/chat/completions \\(ECONNREFUSED\\)`));
  assert.match(r.error!.hint!, /is running/);
  // Not retried: a refused connection is final.
  assert.equal(sys.bus.history(['agent:request-failed']).filter((e) => e.payload.runId === r.runId).length, 0);
  // Neither text nor tool call: reported, and the run ends cleanly.
  server.model.setScript([{ text: '' }, sumScript()[1]!]);
  const empty = await agent.run({ goal: 'hi', model: model() });
  assert.equal(empty.error?.code, 'EMPTY_RESPONSE');
  // After every error the runtime, the bus and the tools still work.
  const again = await agent.run({ goal: 'hi', model: model() });
  assert.equal(again.answer, SUM_ANSWER);
  const py = await sys.tools.executeTool<{ value: number }>('execute_python', { code: '6 * 7' });
  assert.equal(py.ok && py.value.value, 42);
  // The agent's runs have Python globals of their own (each run is a session): the shared session
  // never saw the `total` they computed.
  const shared = await sys.tools.executeTool('execute_python', { code: 'total' });
  assert.equal(!shared.ok && shared.error.code, 'NameError', JSON.stringify(shared).slice(0, 300));
  // Agent-written code cannot read a provider key: the host's environment is out of Python's reach
  // (confined: no js.process), and Python's own environment holds none of it.
  const env = await sys.tools.executeTool('execute_python', { code: 'import js\njs.process.env' });
  assert.equal(!env.ok && env.error.code, 'AttributeError', JSON.stringify(env).slice(0, 300));
  const pyEnv = await sys.tools.executeTool<{ value: string }>('execute_python', { code: 'import os\nrepr(dict(os.environ))' });
  assert.ok(pyEnv.ok && !pyEnv.value.value.includes('ARMATURE_E2E_PROVIDER_API_KEY'), JSON.stringify(pyEnv).slice(0, 300));
  assert.deepEqual(agent.activeRuns(), []);
});
