// Agent-made tools end to end in Node: the default upgrades booted for real (Pyodide in its worker,
// JavaScript tools in confined child processes, the workspace on disk) under a persona that may
// make tools without approval, driven by direct tool calls, from Python, and through the agent's
// scripted model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import type { PythonToolApi } from '../../upgrades/python-tool/python-tool-types.ts';
import type { ToolChangeAnswer } from '../../upgrades/made-tools/made-tools.ts';
import { NUMBERS_FILE } from '../helpers/agent-task.ts';
import { BAD, FILE_SIZE, SLUGIFY, SLUGIFY_V2, WORD_COUNT } from '../helpers/made-tool-fixtures.ts';
import { makerPersona, withPersonas } from '../helpers/persona-overlay.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { startProbe } from '../helpers/probe-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { escapeAttempts, escapeTool } from '../helpers/escape-attempts.ts';
import { value } from '../helpers/tool-value.ts';

const data = tempDir('made-tools');
// The maker may call every tool but delete_file: a tool it makes may not either.
const MAKER_TOOLS = ['made.*', 'create_tool', 'update_tool', 'rollback_tool', 'retire_tool', 'list_tools_made', 'tool_history', 'read_file', 'write_file', 'list_files', 'execute_python', 'list_skills', 'read_skill', 'list_runs', 'read_run'];
const bootMaker = (config: Record<string, Record<string, unknown>> = {}) =>
  boot({
    persona: 'maker',
    platform: withPersonas(createNodePlatform({ dataDir: data }), [makerPersona(MAKER_TOOLS)]),
    historySize: 20_000,
    config: { MadeTools: { testTimeoutMs: 2000, canaryCalls: 4, canaryFailureShare: 0.5 }, ...config },
  });

let sys: ArmatureSystem;
let server: ScriptedModelServer;

before(async () => {
  sys = await bootMaker();
  server = await startScriptedModelServer();
  assert.equal((await sys.tools.executeTool('write_file', NUMBERS_FILE)).ok, true);
});
after(async () => {
  await sys?.dispose();
  await server?.close();
});

const failure = (r: ToolResult) => {
  assert.equal(r.ok, false, `expected a failure, got ${JSON.stringify(r)}`);
  return r as Extract<ToolResult, { ok: false }>;
};
const create = async (args: Record<string, unknown>, tool = 'create_tool') => value(await sys.tools.executeTool<ToolChangeAnswer>(tool, args, { caller: 'agent' }));
const python = (code: string) => sys.tools.executeTool<{ value: unknown; stdout: string }>('execute_python', { code }, { caller: 'agent' });

test('a Python tool and a JavaScript tool pass their tests and are tools like any other at once', async () => {
  const wc = await create(WORD_COUNT);
  assert.equal(wc.status, 'active', JSON.stringify(wc));
  assert.equal(wc.name, 'made.word_count');
  assert.equal(wc.version, 1);
  assert.match(wc.change, /^c[0-9a-f]{8}$/);
  assert.deepEqual(wc.tests.map((t) => [t.ok, t.value]), [[true, 4], [true, 2], [true, 0]]);
  const slug = await create(SLUGIFY);
  assert.equal(slug.status, 'active', JSON.stringify(slug));

  // As tools (the CLI's path: caller cli), with the ToolRunner's validation and statistics.
  assert.equal(value(await sys.tools.executeTool('made.word_count', { text: 'one two three' }, { caller: 'cli' })), 3);
  assert.equal(value(await sys.tools.executeTool('made.slugify', { title: 'Armature Makes Tools' }, { caller: 'cli' })), 'armature-makes-tools');
  assert.equal(failure(await sys.tools.executeTool('made.word_count', { txt: 'x' })).error.code, 'INVALID_ARGUMENTS');
  assert.ok(sys.tools.getStats().find((s) => s.name === 'made.slugify')!.calls >= 1);
  // In the declarations (armature tools), the skills and the system prompt.
  const names = sys.tools.getToolDeclarations().map((d) => d.name);
  assert.ok(names.includes('made.word_count') && names.includes('made.slugify'));
  const py = await sys.resolve<PythonToolApi>('PythonTool');
  assert.match(py.readSkill('made'), /## word_count\(text, min_len=None\)/);
  assert.match(py.getSystemPrompt(), /made: .*slugify.*word_count|made: .*word_count/s);

  // From Python, with no restart: both are ToolRunner calls (the Python one runs in an
  // interpreter of its own, never in the caller's), by import or by the generic call_tool.
  const seen = sys.bus.history(['tool:started']).length;
  const r = value(await python('from tools.made import word_count, slugify\n[word_count("a b c d"), word_count(text="a bb", min_len=2), slugify(title="From Python"), call_tool("made.word_count", {"text": "x y"})]'));
  assert.deepEqual(r.value, [4, 1, 'from-python', 2]);
  const started = sys.bus.history(['tool:started']).slice(seen).map((e) => e.payload);
  assert.deepEqual(started.filter((p) => p.name === 'made.word_count').map((p) => p.caller), ['python', 'python', 'python']);
  assert.ok(started.some((p) => p.name === 'made.slugify' && p.caller === 'python'));
});

test('a JavaScript tool reaches other tools only through call_tool, within its persona\'s allow-list', async () => {
  const fs = await create(FILE_SIZE);
  assert.equal(fs.status, 'active', JSON.stringify(fs));
  assert.equal(value(await sys.tools.executeTool('made.file_size', { path: NUMBERS_FILE.path })), NUMBERS_FILE.content.length);
  const calls = sys.bus.history(['tool:finished']).map((e) => e.payload).filter((p) => p.caller === 'tool:made.file_size');
  assert.ok(calls.some((c) => c.name === 'read_file' && c.ok), 'the inner call went through the ToolRunner as the tool');

  const deleter = await create({
    name: 'tidy',
    description: 'Deletes a file.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    language: 'javascript',
    code: "export default async ({ path }, { call_tool }) => call_tool('delete_file', { path });\n",
    tests: [{ args: { path: NUMBERS_FILE.path }, expect_error: 'TOOL_NOT_ALLOWED' }],
  });
  assert.equal(deleter.status, 'active', JSON.stringify(deleter));
  const denied = failure(await sys.tools.executeTool('made.tidy', { path: NUMBERS_FILE.path }));
  assert.equal(denied.error.code, 'TOOL_NOT_ALLOWED');
  assert.match(denied.error.message, /persona maker, which made made\.tidy, does not allow tool "delete_file"/);
  assert.equal(value(await sys.tools.executeTool<{ content: string }>('read_file', { path: NUMBERS_FILE.path })).content, NUMBERS_FILE.content, 'nothing was deleted');
});

test('a JavaScript tool that tries the DOM, IndexedDB, a disallowed origin, process or a Node built-in gets an error; nothing happens outside', async () => {
  const probe = await startProbe();
  const { origin, hits } = probe;
  const marker = join(tempDir('made-escape'), 'escaped.txt');
  try {
    const attempts = escapeAttempts('node', origin, marker);
    // One tool per attempt, each proven by its own gate (its test expects the error) and by a real call.
    for (const [what, attempt] of Object.entries(attempts)) {
      const error = attempt[1];
      const made = await create(escapeTool(what, attempt));
      assert.equal(made.status, 'active', JSON.stringify(made.tests));
      const r = failure(await sys.tools.executeTool(`made.try_${what}`, {}));
      assert.ok(`${r.error.code} ${r.error.message}`.includes(error), `${what}: ${JSON.stringify(r.error)}`);
    }
    assert.deepEqual(hits, [], 'no request reached the server');
    assert.equal(existsSync(marker), false, 'no file was written');
  } finally {
    await probe.close();
  }
});

test('a failing test, an endless loop (Python and JavaScript) and no tests are rejected; the version in force stays and all stays usable', async () => {
  const cases = [
    [BAD.failingPython, 'UNEXPECTED_VALUE', 'update_tool'],
    [BAD.loopingPython, 'TimeoutError', 'update_tool'],
    [BAD.loopingJs, 'SANDBOX_TIMEOUT', 'update_tool'],
    [BAD.noTests, 'no tests', 'update_tool'],
  ] as const;
  for (const [args, why, tool] of cases) {
    const r = await create(args, tool);
    assert.equal(r.status, 'rejected', `${args.reason}: ${JSON.stringify(r)}`);
    assert.match(`${r.report} ${JSON.stringify(r.tests)}`, new RegExp(why), `${args.reason}: ${r.report}`);
    assert.match(r.hint!, /Version 1 stays in force/);
  }
  // The versions in force answer as before; Python and the workers are usable.
  assert.equal(value(await sys.tools.executeTool('made.word_count', { text: 'still counting words' })), 3);
  assert.equal(value(await sys.tools.executeTool('made.slugify', { title: 'Still Here' })), 'still-here');
  assert.equal(value(await python('6 * 7')).value, 42);
  const history = value(await sys.tools.executeTool<{ versions: { status: string; version: number }[] }>('tool_history', { name: 'word_count' }));
  assert.deepEqual(history.versions.map((v) => v.status), ['active', 'rejected', 'rejected']);
});

test('update_tool brings in the next version hot; rollback_tool restores the old behaviour', async () => {
  const v2 = await create({ name: 'slugify', code: SLUGIFY_V2.code, tests: SLUGIFY_V2.tests, reason: SLUGIFY_V2.reason }, 'update_tool');
  assert.equal(v2.status, 'active', JSON.stringify(v2));
  // Versions 2 and 3 were the rejected ones above: every distinct content gets its number.
  assert.equal(v2.version, 4);
  assert.equal(value(await sys.tools.executeTool('made.slugify', { title: 'Hello, World!' })), 'hello_world');
  assert.deepEqual(value(await python('from tools.made import slugify\nslugify("A B")')).value, 'a_b');
  const back = await create({ name: 'made.slugify', version: 1, reason: 'dashes after all' }, 'rollback_tool');
  assert.equal(back.status, 'active', JSON.stringify(back));
  assert.equal(back.version, 1);
  assert.equal(value(await sys.tools.executeTool('made.slugify', { title: 'Hello, World!' })), 'hello-world');
  const history = value(await sys.tools.executeTool<{ versions: { version: number; status: string; action: string }[] }>('tool_history', { name: 'slugify' }));
  assert.deepEqual(
    history.versions.map((v) => [v.action, v.version, v.status]),
    [['create', 1, 'superseded'], ['update', 2, 'rejected'], ['update', 3, 'rejected'], ['update', 4, 'rolled-back'], ['rollback', 1, 'active']],
  );
});

test('the canary rolls back a version that starts failing, with an event saying why', async () => {
  const flaky = await create({
    name: 'slugify',
    code: "export default async ({ title }) => { if (title.includes('!')) throw new Error('cannot slug ' + title); return title.toLowerCase().split(' ').join('+'); };\n",
    tests: [{ args: { title: 'a b' }, expect: 'a+b' }],
    reason: 'plus signs',
  }, 'update_tool');
  assert.equal(flaky.status, 'active', JSON.stringify(flaky));
  const rolled = new Promise<{ reason: string; id: string }>((resolve) => sys.bus.on('change:rolled-back', (e) => resolve({ reason: e.reason, id: e.change.id })));
  for (const title of ['x!', 'y!', 'z!']) failure(await sys.tools.executeTool('made.slugify', { title }));
  const event = await rolled;
  assert.equal(event.id, flaky.change);
  assert.match(event.reason, /canary: 3 of its first 3 calls failed \(more than 50% of the 4 it watches\); the last error: Error: cannot slug z!/);
  const changes = await sys.resolve<ChangesApi>('Changes');
  const now = changes.active('tool', 'made.slugify')!;
  assert.equal(now.version, 1);
  assert.equal(now.approver, 'system');
  assert.equal(value(await sys.tools.executeTool('made.slugify', { title: 'Back to Dashes' })), 'back-to-dashes');
});

test('through the agent\'s scripted model: it creates a tool and calls it from Python; the records name its run; it cannot approve', async () => {
  const agent = await sys.resolve<AgentApi>('Agent');
  const tool = { ...WORD_COUNT, name: 'line_count', description: 'Count the lines of a text.', code: 'def line_count(text):\n    return len(text.splitlines())\n', input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, tests: [{ args: { text: 'a\nb' }, expect: 2 }] };
  server.model.setScript([
    { text: 'I will make a tool.', toolCalls: [{ id: 'make', name: 'create_tool', args: tool }] },
    { toolCalls: [{ id: 'use', name: 'execute_python', args: { code: 'from tools.made import line_count, slugify\n[line_count("x\\ny\\nz"), slugify(title="By The Agent")]' } }] },
    { text: 'Three lines.' },
  ]);
  const run = await agent.run({ goal: 'count lines with a tool of your own', model: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL } });
  assert.equal(run.reason, 'answered', JSON.stringify(run.error));
  const made = run.toolCalls[0]!.result as { ok: boolean; value: ToolChangeAnswer };
  assert.equal(made.value.status, 'active', JSON.stringify(made));
  assert.deepEqual((run.toolCalls[1]!.result as { value: { value: unknown } }).value.value, [3, 'by-the-agent']);
  const changes = await sys.resolve<ChangesApi>('Changes');
  const record = changes.get(made.value.change)!;
  // A system booted on a data folder is a process there (its journal's id), and its changes say so.
  assert.ok(sys.process, 'boot() on a data folder keeps a journal');
  assert.deepEqual(record.caller, { persona: 'maker', run: run.runId, via: 'agent', process: sys.process.id });
  assert.equal(record.reason, WORD_COUNT.reason);
  // No tool approves: the agent has none to call, and the API refuses anyone but a person.
  assert.ok(!sys.tools.getToolDeclarations().some((d) => /approve|reject/.test(d.name)));
  await assert.rejects(changes.approve(record.id, { caller: 'agent' }), /APPROVAL_REFUSED|only a person/);
});

test('retire_tool takes a tool out; a new boot brings back what is in force and skips a damaged version, reporting it', async () => {
  const retired = value(await sys.tools.executeTool<{ status: string }>('retire_tool', { name: 'tidy', reason: 'no longer needed' }));
  assert.equal(retired.status, 'retired');
  assert.equal(failure(await sys.tools.executeTool('made.tidy', { path: 'x' })).error.code, 'UNKNOWN_TOOL');
  const listed = value(await sys.tools.executeTool<{ tools: { name: string; status: string; version: number | null }[] }>('list_tools_made', {}));
  assert.deepEqual(listed.tools.find((t) => t.name === 'made.tidy'), { ...listed.tools.find((t) => t.name === 'made.tidy'), status: 'retired', version: null });

  // Damage the stored version of line_count on disk, then boot again.
  const changes = await sys.resolve<ChangesApi>('Changes');
  const lineCount = changes.active('tool', 'made.line_count')!;
  await sys.dispose();
  const file = join(data, 'changes', 'blobs', `${lineCount.hash}.json`);
  writeFileSync(file, readFileSync(file, 'utf8').replace('splitlines', 'split'));

  sys = await bootMaker();
  const part = sys.modules.find((m) => m.id === 'tool:made.line_count')!;
  assert.equal(part.state, 'failed');
  assert.equal(part.parent, 'MadeTools');
  assert.match(part.error!.message, /could not be loaded and was skipped/);
  assert.equal(sys.modules.find((m) => m.id === 'MadeTools')!.state, 'loaded', 'the boot went on');
  assert.deepEqual(sys.bus.history(['change:load-failed']).map((e) => [e.payload.change.target, e.payload.error.code]), [['made.line_count', 'VERSION_CORRUPTED']]);
  assert.equal(failure(await sys.tools.executeTool('made.line_count', { text: 'x' })).error.code, 'UNKNOWN_TOOL');
  // The others are back, in the versions in force, in a new process's worth of state.
  assert.equal(value(await sys.tools.executeTool('made.slugify', { title: 'After Reboot' })), 'after-reboot');
  assert.equal(value(await sys.tools.executeTool('made.word_count', { text: 'after a reboot' })), 3);
  assert.deepEqual(value(await python('from tools.made import word_count\nword_count("x y")')).value, 2);
  assert.equal(sys.modules.find((m) => m.id === 'tool:made.slugify')!.version, 'v1');
});
