// The agent loop against the provider library's mock model: real ToolRunner, real workspace area
// for transcripts (in memory). The real HTTP path is covered by test/e2e/agent*.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { scriptedMockModel, type MockTurn } from '../../test/helpers/mock-model.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { createAgent } from './agent.ts';
import { environmentKeys } from './keys.ts';
import { memorySettings } from './settings.ts';
import { TranscriptStore } from './transcript.ts';

const decl = (name: string, module: string, properties: Record<string, unknown> = {}, required: string[] = []): ToolDeclaration => ({
  name,
  module,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties, required, additionalProperties: false },
  pythonCallable: name !== 'execute_python',
});

const DECLS = [
  decl('add', 'Calc', { a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
  decl('slow', 'Calc'),
  decl('execute_python', 'PythonTool', { code: { type: 'string' } }, ['code']),
  decl('list_skills', 'PythonTool'),
  decl('read_skill', 'PythonTool', { namespace: { type: 'string' } }, ['namespace']),
];

interface Setup {
  turns: MockTurn[];
  env?: Record<string, string>;
  persona?: Partial<Persona>;
  store?: ReturnType<typeof memoryStore>;
  noPython?: boolean;
}

async function setup(s: Setup) {
  const bus = createEventBus({ historySize: 10_000 });
  const persona: Persona = {
    id: 'tester',
    name: 'Tester',
    description: 'unit tests',
    upgrades: ['ToolRunner'],
    tools: ['*'],
    skills: [],
    model: { provider: 'openai-compatible', model: 'scripted', baseURL: 'http://127.0.0.1:9/v1' },
    ...s.persona,
  };
  const runner = createToolRunner({ bus, persona });
  let releaseSlow: () => void = () => {};
  let markSlowStarted: () => void = () => {};
  const slowStarted = new Promise<void>((r) => (markSlowStarted = r));
  const interrupted: (string | undefined)[] = [];
  const sessions: (string | undefined)[] = [];
  runner.registerTools(DECLS, async (name, args, call) => {
    sessions.push(call.session);
    if (name === 'add') return (args.a as number) + (args.b as number);
    if (name === 'slow' || (name === 'execute_python' && args.code === 'wait')) {
      markSlowStarted();
      return new Promise((r) => (releaseSlow = () => r('slow done')));
    }
    if (name === 'execute_python') return { value: 42, stdout: `ran: ${String(args.code)}\n`, stderr: '', executionTime: 1 };
    return { ok: true };
  });
  const store = s.store ?? memoryStore();
  const workspace = await createWorkspace({ store, bus });
  const model = scriptedMockModel(s.turns);
  const agent = createAgent({
    runner,
    bus,
    persona,
    transcripts: new TranscriptStore(workspace.area('runs')),
    keys: environmentKeys(s.env ?? {}),
    settings: memorySettings(),
    ...(s.noPython ? {} : { python: { getSystemPrompt: (p?: Persona) => `PYTHON PROMPT for ${p?.name}`, interrupt: (session?: string) => void interrupted.push(session) } }),
    modelFactory: async () => model,
    maxRetries: 0,
  });
  return { bus, agent, model, runner, workspace, store, sessions, release: () => releaseSlow(), slowStarted, interrupted };
}

const eventsOf = (bus: ReturnType<typeof createEventBus>, prefix = 'agent:') => bus.history().filter((r) => r.type.startsWith(prefix));
const toolNames = (call: { tools?: { name: string }[] }) => (call.tools ?? []).map((t) => t.name).sort();

test('a tool call runs through the ToolRunner as the agent, its result goes back, and the answer ends the run', async () => {
  const f = await setup({
    persona: { toolMode: 'direct' },
    turns: [{ text: 'Adding.', toolCalls: [{ name: 'add', args: { a: 2, b: 40 } }], usage: { input: 50, output: 5 } }, { text: 'The sum is 42.', usage: { input: 80, output: 7 } }],
  });
  const r = await f.agent.run({ goal: 'add 2 and 40' });
  assert.equal(r.reason, 'answered');
  assert.equal(r.answer, 'The sum is 42.');
  assert.equal(r.steps, 2);
  assert.deepEqual(r.usage, { inputTokens: 130, outputTokens: 12 });
  assert.deepEqual(r.toolCalls.map((c) => [c.name, c.ok, c.result]), [['add', true, { ok: true, value: 42 }]]);
  // The ToolRunner saw the call with caller agent and the agent's call id.
  const started = f.bus.history(['tool:started']).map((e) => e.payload);
  assert.equal(started.length, 1);
  assert.equal(started[0]!.caller, 'agent');
  assert.match(started[0]!.callId, new RegExp(`^${r.runId}/1/call_0_0$`));
  // The second request carries the tool result.
  const second = f.model.doStreamCalls[1]!.prompt;
  const toolMsg = second.find((m) => m.role === 'tool')!;
  assert.deepEqual((toolMsg.content[0] as { output: unknown }).output, { type: 'json', value: { ok: true, value: 42 } });
  // Events, in order.
  const types = eventsOf(f.bus).map((e) => e.type);
  assert.equal(types[0], 'agent:run-started');
  assert.equal(types.at(-1), 'agent:run-finished');
  assert.ok(types.indexOf('agent:tool-called') < types.indexOf('agent:tool-finished'));
  assert.deepEqual(
    f.bus.history(['agent:text-delta']).map((e) => e.payload.delta).join(''),
    'Adding.The sum is 42.',
  );
  const finished = f.bus.history(['agent:run-finished'])[0]!.payload;
  assert.deepEqual(finished.usage, { inputTokens: 130, outputTokens: 12 });
  assert.equal(finished.reason, 'answered');
  // The transcript holds the run.
  const entries = f.agent.readRun(r.runId)!;
  assert.deepEqual(entries.map((e) => e.type), ['started', 'assistant', 'tool', 'assistant', 'finished']);
  const summary = f.agent.listRuns()[0]!;
  assert.equal(summary.runId, r.runId);
  assert.equal(summary.reason, 'answered');
  assert.deepEqual(summary.usage, { inputTokens: 130, outputTokens: 12 });
});

test('malformed arguments come back as the ToolRunner\'s INVALID_ARGUMENTS and the model retries', async () => {
  const f = await setup({
    persona: { toolMode: 'direct' },
    turns: [
      { toolCalls: [{ name: 'add', args: { a: 'two', b: 40 } }] },
      { toolCalls: [{ name: 'add', args: '{"a": 2, "b": 4' }] },
      { toolCalls: [{ name: 'add', args: { a: 2, b: 40 } }] },
      { text: '42' },
    ],
  });
  const r = await f.agent.run({ goal: 'add' });
  assert.equal(r.reason, 'answered');
  assert.deepEqual(r.toolCalls.map((c) => c.ok), [false, false, true]);
  for (const bad of r.toolCalls.slice(0, 2)) assert.equal((bad.result as { error: { code: string } }).error.code, 'INVALID_ARGUMENTS');
  // The unparseable arguments still reached the ToolRunner (and count in its statistics).
  assert.equal(f.runner.getStats().find((s) => s.name === 'add')!.calls, 3);
  const secondPrompt = f.model.doStreamCalls[1]!.prompt;
  const result = secondPrompt.find((m) => m.role === 'tool')!.content[0] as unknown as { output: { type: string; value: { error: { message: string } } } };
  assert.equal(result.output.type, 'error-json');
  assert.match(result.output.value.error.message, /invalid arguments for add: \$\.a/);
});

test('maxSteps stops a model that never answers, with reason max-steps', async () => {
  const loop = Array.from({ length: 10 }, () => ({ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }));
  const f = await setup({ persona: { toolMode: 'direct', maxSteps: 3 }, turns: loop });
  const r = await f.agent.run({ goal: 'loop' });
  assert.equal(r.reason, 'max-steps');
  assert.equal(r.steps, 3);
  assert.equal(f.model.doStreamCalls.length, 3);
  assert.equal(r.error?.code, 'MAX_STEPS');
  const r2 = await f.agent.run({ goal: 'loop', maxSteps: 1 });
  assert.equal(r2.steps, 1);
});

test('abort stops a run during a tool call; the runtime stays usable', async () => {
  const f = await setup({ persona: { toolMode: 'direct' }, turns: [{ toolCalls: [{ name: 'slow', args: {} }] }, { text: 'second run' }] });
  const run = f.agent.run({ goal: 'wait' });
  await f.slowStarted;
  assert.equal(f.agent.activeRuns().length, 1);
  f.agent.abort();
  f.release();
  const r = await run;
  assert.equal(r.reason, 'aborted');
  assert.equal(f.model.doStreamCalls.length, 1);
  assert.deepEqual(f.agent.activeRuns(), []);
  // An aborted signal passed in stops a run before its first request.
  const controller = new AbortController();
  controller.abort();
  assert.equal((await f.agent.run({ goal: 'x', signal: controller.signal })).reason, 'aborted');
  assert.equal((await f.agent.run({ goal: 'again' })).answer, 'second run');
});

test('abort during execute_python interrupts the Python of that run\'s session, and ends the session', async () => {
  const f = await setup({ turns: [{ toolCalls: [{ name: 'execute_python', args: { code: 'wait' } }] }] });
  const run = f.agent.run({ goal: 'wait in Python' });
  await f.slowStarted;
  f.agent.abort();
  f.release();
  const r = await run;
  assert.equal(r.reason, 'aborted');
  assert.deepEqual(f.interrupted, [r.runId], 'the run\'s own session, not the shared runtime');
  assert.deepEqual(f.bus.history(['session:ended']).map((e) => e.payload.session), [r.runId]);
});

test('code mode offers execute_python and the skill tools with the Python prompt; direct mode offers every tool', async () => {
  const code = await setup({ turns: [{ toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }, { name: 'execute_python', args: { code: 'print(1)' } }] }, { text: 'done' }] });
  const r = await code.agent.run({ goal: 'compute' });
  assert.deepEqual(toolNames(code.model.doStreamCalls[0] as never), ['execute_python', 'list_skills', 'read_skill']);
  const system = code.model.doStreamCalls[0]!.prompt[0]!;
  assert.equal(system.role, 'system');
  assert.match(String(system.content), /^PYTHON PROMPT for Tester/);
  // A tool outside code mode's set is refused with a hint to call it from Python; execute_python's
  // result has the shape the prompt describes.
  assert.equal((r.toolCalls[0]!.result as { error: { code: string } }).error.code, 'TOOL_NOT_OFFERED');
  assert.match((r.toolCalls[0]!.result as { hint: string }).hint, /call_tool\("add"/);
  assert.deepEqual(r.toolCalls[1]!.result, { ok: true, value: { value: 42, stdout: 'ran: print(1)\n', stderr: '', executionTime: 1 } });
  const pythonCall = code.bus.history(['agent:tool-called']).map((e) => e.payload).find((p) => p.name === 'execute_python')!;
  assert.equal(pythonCall.pythonRunId, `${r.runId}/1/call_0_1`);
  // The run is its own session: its Python globals are apart from other runs' and clients'.
  assert.deepEqual(code.sessions, [r.runId]);
  // Its runtime goes back to the pool as the run ends.
  assert.deepEqual(code.bus.history(['session:ended']).map((e) => e.payload.session), [r.runId]);

  const direct = await setup({ persona: { toolMode: 'direct' }, turns: [{ text: 'ok' }] });
  await direct.agent.run({ goal: 'x' });
  assert.deepEqual(toolNames(direct.model.doStreamCalls[0] as never), ['add', 'execute_python', 'list_skills', 'read_skill', 'slow']);
  assert.match(String(direct.model.doStreamCalls[0]!.prompt[0]!.content), /Call the tools you are given directly/);
  // A narrower persona for one run narrows the tools.
  const narrow = await setup({ persona: { toolMode: 'direct' }, turns: [{ text: 'ok' }] });
  await narrow.agent.run({ goal: 'x', persona: { id: 'n', name: 'N', description: 'n', upgrades: ['ToolRunner'], tools: ['add'], skills: [], model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } }, toolMode: 'direct' });
  assert.deepEqual(toolNames(narrow.model.doStreamCalls[0] as never), ['add']);
});

test('a model answering with neither text nor a tool call ends the run cleanly with EMPTY_RESPONSE', async () => {
  const f = await setup({ turns: [{ text: '' }, { text: 'fine' }] });
  const r = await f.agent.run({ goal: 'x' });
  assert.equal(r.reason, 'error');
  assert.equal(r.error?.code, 'EMPTY_RESPONSE');
  assert.equal((await f.agent.run({ goal: 'y' })).answer, 'fine');
});

test('usage is summed per turn and per run summary across a follow-up, which survives a new agent over the same store', async () => {
  const store = memoryStore();
  const first = await setup({ store, turns: [{ text: 'one', usage: { input: 10, output: 1 } }] });
  const r1 = await first.agent.run({ goal: 'first' });
  // A new agent over the same durable store: what a page reload gives.
  const second = await setup({ store, turns: [{ toolCalls: [{ name: 'execute_python', args: { code: 'x' } }], usage: { input: 20, output: 2 } }, { text: 'two', usage: { input: 30, output: 3 } }] });
  const r2 = await second.agent.run({ goal: 'follow up', runId: r1.runId });
  assert.equal(r2.runId, r1.runId);
  assert.deepEqual(r2.usage, { inputTokens: 50, outputTokens: 5 });
  const prompt = second.model.doStreamCalls[0]!.prompt.filter((m) => m.role !== 'system');
  assert.deepEqual(prompt.map((m) => m.role), ['user', 'assistant', 'user']);
  const started = second.bus.history(['agent:run-started'])[0]!.payload;
  assert.equal(started.continued, true);
  // Steps continue their numbering across turns.
  assert.deepEqual(second.bus.history(['agent:step-finished']).map((e) => e.payload.step), [2, 3]);
  const summary = second.agent.listRuns().find((s) => s.runId === r1.runId)!;
  assert.equal(summary.turns, 2);
  assert.equal(summary.steps, 3);
  assert.deepEqual(summary.usage, { inputTokens: 60, outputTokens: 6 });
  const missing = await second.agent.run({ goal: 'x', runId: 'run-20200101-000000-nothin' });
  assert.equal(missing.error?.code, 'RUN_NOT_FOUND');
  const invalid = await second.agent.run({ goal: 'x', runId: '../escape' });
  assert.equal(invalid.error?.code, 'INVALID_RUN_ID');
});

test('a run interrupted mid-call is continued with an INTERRUPTED result for the unanswered call', async () => {
  const f = await setup({ persona: { toolMode: 'direct' }, turns: [{ toolCalls: [{ name: 'slow', args: {} }] }, { text: 'resumed' }] });
  const run = f.agent.run({ goal: 'wait' });
  await f.slowStarted;
  // Simulate a reload: the transcript has the call but no result yet.
  const { runId } = f.agent.listRuns()[0]!;
  const transcript = () => f.workspace.area('runs').readText(`${runId}.jsonl`) ?? '';
  for (let i = 0; i < 500 && !transcript().includes('"slow"'); i++) await new Promise((r) => setTimeout(r, 10));
  const snapshot = transcript();
  f.agent.abort();
  f.release();
  await run;
  const g = await setup({ persona: { toolMode: 'direct' }, turns: [{ text: 'resumed' }] });
  await g.workspace.area('runs').write(`${runId}.jsonl`, snapshot);
  assert.equal(g.agent.listRuns()[0]!.reason, 'interrupted');
  const r = await g.agent.run({ goal: 'go on', runId });
  assert.equal(r.answer, 'resumed');
  const toolMsg = g.model.doStreamCalls[0]!.prompt.find((m) => m.role === 'tool')!;
  assert.match(JSON.stringify(toolMsg.content), /INTERRUPTED/);
});

test('the key never reaches an event, the transcript, the result or an error, even when the provider echoes it', async () => {
  const KEY = 'sk-test-Very-Secret-Key-0123456789';
  const f = await setup({
    env: { OPENAI_API_KEY: KEY },
    persona: { model: { provider: 'openai', model: 'gpt-test' }, toolMode: 'direct' },
    turns: [
      { text: `I saw ${KEY} somewhere`, toolCalls: [{ name: 'add', args: { a: 1, b: KEY } }] },
      { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } },
    ],
  });
  const r = await f.agent.run({ goal: `use ${KEY}` });
  assert.equal(r.reason, 'error');
  assert.equal(r.error?.code, 'MODEL_AUTH_FAILED');
  assert.match(r.error!.message, /the provider refused the key \(HTTP 401/);
  assert.match(r.error!.hint!, /Set OPENAI_API_KEY/);
  // The step whose request failed counts alike in the event and in the run's summary.
  assert.equal(f.bus.history(['agent:run-finished'])[0]!.payload.steps, 2);
  assert.equal(f.agent.listRuns().find((s) => s.runId === r.runId)!.steps, 2);
  const everything = [
    JSON.stringify(f.bus.history()),
    f.workspace.area('runs').readText(`${r.runId}.jsonl`)!,
    JSON.stringify(r),
    JSON.stringify(f.agent.listRuns()),
    JSON.stringify([...f.store.files.values()].map((x) => new TextDecoder().decode(x.data))),
  ].join('\n');
  assert.ok(!everything.includes(KEY), 'the key leaked');
  assert.match(everything, /\[redacted key\]/);
  // A provider that needs a key fails before any request when there is none.
  const g = await setup({ persona: { model: { provider: 'anthropic', model: 'claude-test' } }, turns: [] });
  const none = await g.agent.run({ goal: 'x' });
  assert.equal(none.error?.code, 'NO_API_KEY');
  assert.match(none.error!.hint!, /ANTHROPIC_API_KEY/);
  assert.equal(g.model.doStreamCalls.length, 0);
});

test('no model configured, an empty goal and code mode without Python are readable errors', async () => {
  const f = await setup({ persona: { model: undefined }, turns: [] });
  const r = await f.agent.run({ goal: 'x' });
  assert.equal(r.error?.code, 'NO_MODEL');
  assert.match(r.error!.hint!, /--model openai-compatible:MODEL --base-url/);
  const g = await setup({ turns: [] });
  assert.equal((await g.agent.run({ goal: '  ' })).error?.code, 'EMPTY_GOAL');
  const noPython = await setup({ noPython: true, turns: [] });
  const refused = await noPython.agent.run({ goal: 'x' });
  assert.equal(refused.error?.code, 'CODE_MODE_NEEDS_PYTHON');
  assert.match(refused.error!.hint!, /"toolMode": "direct"/);
  assert.deepEqual(noPython.agent.describeRun({ toolMode: 'direct' }).tools, ['add', 'slow', 'execute_python', 'list_skills', 'read_skill']);
  // A CLI-style override: provider and model from the call, base URL from the persona.
  const h = await setup({ turns: [{ text: 'ok' }] });
  const ok = await h.agent.run({ goal: 'x', model: { model: 'other' } });
  assert.equal(ok.reason, 'answered');
  assert.deepEqual(h.bus.history(['agent:run-started'])[0]!.payload.model, { provider: 'openai-compatible', model: 'other', baseURL: 'http://127.0.0.1:9/v1' });
});
