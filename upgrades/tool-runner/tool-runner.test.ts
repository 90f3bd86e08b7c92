import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner, describeSchema } from './tool-runner.ts';

const persona = (tools: string[]): Persona => ({ id: 'p', name: 'P', description: 'p', upgrades: [], tools, skills: [] });
const decl = (name: string, inputSchema: Record<string, unknown> = { type: 'object' }, extra: Partial<ToolDeclaration> = {}): ToolDeclaration => ({
  name,
  description: name,
  module: 'Test',
  inputSchema: inputSchema as ToolDeclaration['inputSchema'],
  pythonCallable: true,
  ...extra,
});

function setup(tools = ['*'], defaultTimeoutMs?: number) {
  const bus = createEventBus();
  const runner = createToolRunner({ bus, persona: persona(tools), defaultTimeoutMs });
  return { bus, runner };
}

const fileSchema = {
  type: 'object',
  properties: { path: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 0 }, mode: { enum: ['a', 'b'] } },
  required: ['path', 'count'],
  additionalProperties: false,
};

test('a successful call returns { ok, value, durationMs } and emits started/finished', async () => {
  const { bus, runner } = setup();
  const seen: string[] = [];
  bus.on('tool:started', (p) => seen.push(`started:${p.name}:${p.caller}`));
  bus.on('tool:finished', (p) => seen.push(`finished:${p.name}:${p.ok}`));
  runner.registerTools([decl('add', { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } })], (_n, a) => (a.a as number) + (a.b as number));
  const r = await runner.executeTool('add', { a: 2, b: 3 }, { caller: 'python' });
  assert.equal(r.ok, true);
  assert.equal(r.ok && r.value, 5);
  assert.ok(r.durationMs >= 0);
  assert.deepEqual(seen, ['started:add:python', 'finished:add:true']);
});

test('validation lists every bad field with what was expected', async () => {
  const { runner } = setup();
  let called = false;
  runner.registerTools([decl('write', fileSchema)], () => (called = true));
  const r = await runner.executeTool('write', { path: '', count: -1.5, mode: 'c', extra: true });
  assert.equal(r.ok, false);
  assert.equal(called, false);
  if (r.ok) return;
  assert.equal(r.error.code, 'INVALID_ARGUMENTS');
  const paths = new Set((r.error.details as { issues: { path: string }[] }).issues.map((i) => i.path));
  assert.deepEqual([...paths].sort(), ['$', '$.count', '$.mode', '$.path']);
  assert.match(r.error.message, /\$\.path: Too small/);
  assert.match(r.error.message, /\$\.mode: Invalid option: expected one of "a"\|"b"/);
  assert.match(r.error.message, /Unrecognized key: "extra"/);
  assert.match(r.hint!, /write takes \{ path: string, count: integer, mode\?: "a" \| "b" \}/);
  const missing = await runner.executeTool('write', {});
  assert.match(!missing.ok ? missing.error.message : '', /\$\.path: Invalid input: expected string, received undefined/);
});

test('an unknown tool suggests the closest names', async () => {
  const { runner } = setup();
  runner.registerTools([decl('read_file'), decl('write_file'), decl('list_files')], () => null);
  const r = await runner.executeTool('reed_file', {});
  assert.equal(!r.ok && r.error.code, 'UNKNOWN_TOOL');
  assert.match(!r.ok ? r.error.message : '', /no tool named "reed_file"; did you mean "read_file"/);
  assert.equal(!r.ok && r.hint, 'Call read_file instead.');
  // Nothing close: the hint says how to look, in the caller's own terms.
  const agent = await runner.executeTool('zzz', {});
  assert.equal(!agent.ok && agent.hint, 'List the available tools with getToolDeclarations().');
  const python = await runner.executeTool('zzz', {}, { caller: 'python' });
  assert.match(!python.ok ? python.hint ?? '' : '', /call_tool\("list_skills"\)/);
  // A person at the command line and an MCP client have no getToolDeclarations() to call.
  const cli = await runner.executeTool('zzz', {}, { caller: 'cli' });
  assert.match(!cli.ok ? cli.hint ?? '' : '', /armature tools/);
  const mcp = await runner.executeTool('zzz', {}, { caller: 'mcp' });
  assert.equal(!mcp.ok && mcp.hint, 'List the available tools with tools/list.');
  const model = await runner.executeTool('zzz', {}, { caller: 'agent' });
  assert.equal(!model.ok && model.hint, 'Call one of the tools you were offered.');
});

test('the persona allow-list filters declarations and refuses other calls clearly', async () => {
  const { runner } = setup(['read_file']);
  runner.registerTools([decl('read_file'), decl('write_file')], () => 'done');
  assert.deepEqual(runner.getToolDeclarations().map((d) => d.name), ['read_file']);
  assert.deepEqual(runner.getToolDeclarations({ persona: persona(['*']) }).map((d) => d.name), ['read_file', 'write_file']);
  const r = await runner.executeTool('write_file', {});
  assert.equal(!r.ok && r.error.code, 'TOOL_NOT_ALLOWED');
  assert.match(!r.ok ? r.error.message : '', /persona p does not allow tool write_file/);
  assert.match(!r.ok ? r.hint ?? '' : '', /modules\/personas\/p\.json/);
});

test('per-call timeout: the call returns TIMEOUT and the handler sees an aborted signal', async () => {
  const { runner } = setup(['*'], 5_000);
  let aborted = false;
  runner.registerTools([decl('slow'), decl('slow2', undefined, { timeoutMs: 20 })], (_n, _a, call) =>
    new Promise((resolve) => {
      call.signal.addEventListener('abort', () => {
        aborted = true;
        resolve('late');
      });
    }),
  );
  const r = await runner.executeTool('slow', {}, { timeoutMs: 30 });
  assert.equal(!r.ok && r.error.code, 'TIMEOUT');
  assert.match(!r.ok ? r.error.message : '', /slow did not finish within 30 ms/);
  assert.equal(aborted, true);
  const r2 = await runner.executeTool('slow2', {});
  assert.match(!r2.ok ? r2.error.message : '', /within 20 ms/);
});

test('a handler that looks at its signal only after the call ended sees it aborted, with the reason', async () => {
  const { runner } = setup(['*'], 5_000);
  let later: AbortSignal | undefined;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  runner.registerTools([decl('lazy')], async (_n, _a, call) => {
    await gate;
    later = call.signal;
    return 'done';
  });
  const r = await runner.executeTool('lazy', {}, { timeoutMs: 20 });
  assert.equal(!r.ok && r.error.code, 'TIMEOUT');
  release();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(later?.aborted, true);
  assert.equal((later?.reason as ArmatureError | undefined)?.code, 'TIMEOUT');
  // A call that ends normally leaves its signal unaborted.
  runner.registerTools([decl('quick')], (_n, _a, call) => call.signal.aborted);
  const q = await runner.executeTool<boolean>('quick', {});
  assert.equal(q.ok && q.value, false);
});

test('a throwing handler becomes ok:false with its code and hint; plain errors get TOOL_FAILED', async () => {
  const { runner } = setup();
  runner.registerTools([decl('boom'), decl('crash')], (name) => {
    if (name === 'boom') throw new ArmatureError('FILE_NOT_FOUND', 'no file "x"', { hint: 'List the files.' });
    throw new TypeError('undefined is not a function');
  });
  const a = await runner.executeTool('boom', {});
  assert.deepEqual(!a.ok && [a.error.code, a.error.message, a.hint], ['FILE_NOT_FOUND', 'no file "x"', 'List the files.']);
  const b = await runner.executeTool('crash', {});
  assert.deepEqual(!b.ok && [b.error.code, b.error.message], ['TOOL_FAILED', 'TypeError: undefined is not a function']);
});

test('per-tool stats: calls, errors, mean and p95', async () => {
  const { runner } = setup();
  runner.registerTools([decl('t', { type: 'object', properties: { fail: { type: 'boolean' } } })], (_n, a) => {
    if (a.fail) throw new Error('asked to');
    return 1;
  });
  for (let i = 0; i < 9; i++) await runner.executeTool('t', {});
  await runner.executeTool('t', { fail: true });
  await runner.executeTool('t', { fail: 'nope' });
  const s = runner.getStats().find((x) => x.name === 't')!;
  assert.equal(s.calls, 11);
  assert.equal(s.errors, 2);
  assert.ok(s.meanMs > 0 && s.p95Ms > 0 && s.lastCallAt! > 0, JSON.stringify(s));
});

test('registering a tool twice, or with an unusable schema, is an error; disposing unregisters', () => {
  const { runner } = setup();
  const reg = runner.registerTools([decl('a')], () => 1);
  assert.throws(() => runner.registerTools([decl('a')], () => 2), /tool a is already registered/);
  assert.throws(() => runner.registerTools([decl('b', { type: 'object', properties: { x: { $ref: '#/nowhere' } } })], () => 2), /b: inputSchema is not a usable JSON Schema/);
  reg.dispose();
  assert.equal(runner.hasTool('a'), false);
});

test('describeSchema summarizes properties, optionality, enums and arrays', () => {
  assert.equal(
    describeSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } }, c: { enum: [1, 2] } }, required: ['a'] }),
    '{ a: string, b?: string[], c?: 1 | 2 }',
  );
});

test('a tool group registered several times is addressed by instance; ambiguity and unknown instances are explained', async () => {
  const { runner } = setup();
  const prod = runner.registerTools([decl('query')], () => 'prod rows', { instance: 'prod' });
  runner.registerTools([decl('query')], () => 'staging rows', { instance: 'staging' });
  assert.deepEqual(runner.getToolInstances('query'), ['prod', 'staging']);
  assert.deepEqual(runner.getToolDeclarations().map((d) => d.name), ['query'], 'one declaration per tool name');
  const a = await runner.executeTool('query', {}, { instance: 'staging' });
  assert.equal(a.ok && a.value, 'staging rows');
  const amb = await runner.executeTool('query', {});
  assert.deepEqual(!amb.ok && [amb.error.code, amb.hint], ['AMBIGUOUS_INSTANCE', 'Pass instance_id as one of: prod, staging.']);
  const unknown = await runner.executeTool('query', {}, { instance: 'dev' });
  assert.match(!unknown.ok ? unknown.error.message : '', /query has no instance "dev" \(instances: prod, staging\)/);
  assert.throws(() => runner.registerTools([decl('query')], () => 1, { instance: 'prod' }), /already registered .* with instance "prod"/);
  assert.throws(() => runner.registerTools([decl('query')], () => 1), /several registrations of one tool each need their own instance id/);
  prod.dispose();
  assert.deepEqual(runner.getToolInstances('query'), ['staging']);
  const only = await runner.executeTool('query', {});
  assert.equal(only.ok && only.value, 'staging rows', 'a single remaining instance needs no instance id');
  runner.registerTools([decl('single')], () => 'one');
  const wrong = await runner.executeTool('single', {}, { instance: 'x' });
  assert.match(!wrong.ok ? wrong.error.message : '', /single has no instance "x" \(it has a single, unnamed registration\)/);
});

test('a huge tool name or instance id is refused at once, and never echoed whole', async () => {
  const events: { type: string; payload: { name: string } }[] = [];
  const runner = createToolRunner({ bus: { emit: (type: string, payload: unknown) => events.push({ type, payload: payload as { name: string } }) } as never, persona: { id: 'p', name: 'P', description: 'd', upgrades: ['ToolRunner'], tools: ['*'], skills: [] } });
  runner.registerTools(
    Array.from({ length: 30 }, (_, i) => ({ name: `tool_number_${i}`, description: 'd', inputSchema: { type: 'object' }, module: 'M', pythonCallable: true })),
    () => 'ran',
  );
  const huge = 'x'.repeat(10 * 1024 * 1024);
  // Refused on its length, before the did-you-mean search could look at it.
  const r = await runner.executeTool(huge, {});
  assert.equal(!r.ok && r.error.code, 'INVALID_TOOL_NAME');
  assert.ok(!r.ok && r.error.message.length < 400, 'the message quotes a preview');
  assert.match(!r.ok ? r.error.message : '', /10485760 characters/);
  const calls = events.filter((e) => e.type.startsWith('tool:') && e.type !== 'tool:registered');
  assert.ok(calls.length >= 2 && calls.every((e) => e.payload.name.length <= 129), 'events carry a bounded name');
  const bad = await runner.executeTool('tool_number_1', {}, { instance: 'i'.repeat(1_000_000) });
  assert.equal(!bad.ok && bad.error.code, 'INVALID_INSTANCE');
  assert.ok(!bad.ok && bad.error.message.length < 400);
  for (const odd of ['', 'a\nb', 42, null]) {
    const x = await runner.executeTool(odd as string, {});
    assert.equal(!x.ok && x.error.code, 'INVALID_TOOL_NAME', JSON.stringify(odd));
  }
  // A near miss still gets its suggestion.
  const near = await runner.executeTool('tool_numbr_1', {});
  assert.match(!near.ok ? near.error.message : '', /did you mean "tool_number_1"/);
});

test('namespaced tools: allowed by "*", their own name or "<namespace>.*"; names are checked at registration', async () => {
  const tools = [decl('memory.read_graph', { type: 'object' }, { namespace: 'memory' }), decl('memory.create_entities', { type: 'object' }, { namespace: 'memory' })];
  for (const [allow, expected] of [[['*'], [true, true]], [['memory.*'], [true, true]], [['memory.read_graph'], [true, false]], [['read_graph', 'memory'], [false, false]]] as const) {
    const { runner } = setup([...allow]);
    runner.registerTools(tools, () => 'ok');
    const got = await Promise.all(['memory.read_graph', 'memory.create_entities'].map(async (n) => (await runner.executeTool(n)).ok));
    assert.deepEqual(got, expected, `allow ${allow.join(',')}`);
  }
  const { runner } = setup(['read_file']);
  runner.registerTools(tools, () => 'ok');
  const denied = await runner.executeTool('memory.read_graph');
  assert.equal(!denied.ok && denied.error.code, 'TOOL_NOT_ALLOWED');
  assert.match(!denied.ok ? denied.hint! : '', /Add "memory\.read_graph" or "memory\.\*" to "tools"/);
  for (const bad of [decl('Memory.x', undefined, { namespace: 'memory' }), decl('memory.x'), decl('memory.x', undefined, { namespace: 'other' }), decl('read file'), decl('memory.')]) {
    assert.throws(() => runner.registerTools([bad], () => 1), (e: unknown) => e instanceof ArmatureError && e.code === 'INVALID_TOOL_NAME' && e.message.includes(JSON.stringify(bad.name)), bad.name);
  }
  assert.deepEqual(runner.getToolDeclarations().map((d) => d.name), []);
  assert.deepEqual(setup(['memory.*']).runner.getToolDeclarations(), []);
});

test('a caller-chosen callId reaches events and the handler; a cancelled call answers CANCELLED and aborts the handler', async () => {
  const { bus, runner } = setup();
  const ids: string[] = [];
  bus.on('tool:started', (p) => ids.push(p.callId));
  let handlerSignal: AbortSignal | undefined;
  let seenId = '';
  runner.registerTools([decl('slow')], (_n, _a, call) => {
    handlerSignal = call.signal;
    seenId = call.callId;
    return new Promise((resolve) => call.signal.addEventListener('abort', () => resolve('stopped')));
  });
  const controller = new AbortController();
  const pending = runner.executeTool('slow', {}, { callId: 'mcp-7', signal: controller.signal });
  await new Promise((r) => setTimeout(r, 5));
  controller.abort();
  const r = await pending;
  assert.equal(!r.ok && r.error.code, 'CANCELLED');
  assert.equal(handlerSignal?.aborted, true);
  assert.deepEqual([ids[0], seenId], ['mcp-7', 'mcp-7']);
  let ran = false;
  runner.registerTools([decl('quick')], () => (ran = true));
  const early = await runner.executeTool('quick', {}, { signal: AbortSignal.abort() });
  assert.equal(!early.ok && early.error.code, 'CANCELLED');
  assert.equal(ran, false, 'a call cancelled before it starts never runs');
});

test('a timeout longer than a timer can hold means a long time, not "now"', async () => {
  const runner = createToolRunner({ bus: createEventBus(), persona: persona(['*']) });
  runner.registerTools([{ name: 'slowish', description: 'd', inputSchema: { type: 'object' }, module: 'M', pythonCallable: true }], async () => {
    await new Promise((r) => setTimeout(r, 30));
    return 'done';
  });
  const r = await runner.executeTool('slowish', {}, { timeoutMs: 2 ** 31 });
  assert.equal(r.ok && r.value, 'done', JSON.stringify(r));
});

test('a call\'s session reaches the handler; a bad session name is refused before anything runs', async () => {
  const { runner } = setup();
  const seen: (string | undefined)[] = [];
  runner.registerTools([decl('who')], (_n, _a, call) => void seen.push(call.session));
  assert.equal((await runner.executeTool('who', {}, { session: 'agent-run-1' })).ok, true);
  assert.equal((await runner.executeTool('who', {})).ok, true);
  assert.deepEqual(seen, ['agent-run-1', undefined], 'no session given, none passed on');
  for (const odd of ['', 's'.repeat(200), 'a\u0000b', 7]) {
    const r = await runner.executeTool('who', {}, { session: odd as string });
    assert.equal(!r.ok && r.error.code, 'INVALID_SESSION', JSON.stringify(odd));
    assert.ok(!r.ok && r.error.message.length < 400, 'the message quotes a preview');
  }
  assert.equal(seen.length, 2, 'the handler never ran for a bad session');
});

test('registering announces tool:registered per declaring module; disposing announces tool:unregistered for what it still held', () => {
  const { bus, runner } = setup();
  const seen: string[] = [];
  bus.on('tool:registered', (p) => seen.push(`+${p.module}:${p.names.join(',')}`));
  bus.on('tool:unregistered', (p) => seen.push(`-${p.module}:${p.names.join(',')}`));
  const group = runner.registerTools([decl('a'), decl('b', undefined, { module: 'Other' }), decl('c')], () => 1);
  assert.deepEqual(seen, ['+Test:a,c', '+Other:b']);
  const inst = runner.registerTools([decl('d')], () => 2, { instance: 'one' });
  group.dispose();
  assert.deepEqual(seen.slice(3), ['-Test:a,c', '-Other:b']);
  // A failed registration announces nothing; a second dispose has nothing left to announce.
  assert.throws(() => runner.registerTools([decl('d')], () => 3), /already registered/);
  group.dispose();
  inst.dispose();
  assert.deepEqual(seen.slice(5), ['-Test:d']);
});

test('getToolDeclaration finds a registered tool whatever the persona allows, and nothing once it is gone', () => {
  const { runner } = setup(['other']);
  const d = decl('hidden');
  const reg = runner.registerTools([d], () => 1);
  assert.equal(runner.getToolDeclaration('hidden'), d);
  assert.deepEqual(runner.getToolDeclarations(), [], 'the persona does not list it');
  reg.dispose();
  assert.equal(runner.getToolDeclaration('hidden'), undefined);
});

test('a tool whose module failed is unavailable with the reason, for personas that allow it', async () => {
  const bus = createEventBus();
  const missingTool = (name: string) => (name === 'read_file' ? { module: 'Workspace', reason: 'E: disk gone' } : undefined);
  const runner = createToolRunner({ bus, persona: persona(['read_file']), missingTool });
  const r = await runner.executeTool('read_file', { path: 'a' });
  assert.equal(!r.ok && r.error.message, '[executeTool] read_file is unavailable: its module Workspace failed to load (E: disk gone)');
  assert.equal(!r.ok && r.error.code, 'TOOL_UNAVAILABLE');
  // A persona that does not allow it learns nothing more than before.
  const other = createToolRunner({ bus, persona: persona(['list_files']), missingTool });
  const o = await other.executeTool('read_file', { path: 'a' });
  assert.equal(!o.ok && o.error.code, 'UNKNOWN_TOOL');
});
