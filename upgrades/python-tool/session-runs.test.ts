// execute_python with sessions, through PythonTool over a real pool (confined child processes):
// a session's run never waits for the shared runtime, busy or not started. Asserted by behaviour
// (a run that completes while another is blocked), never by timing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createPyodideRuntime } from '../pyodide-runtime/runtime.ts';
import { createPythonTool } from './python-tool.ts';
import { primeSnapshot } from '../../test/helpers/snapshot.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { buildWheel } from '../../test/helpers/wheel.ts';

const persona: Persona = { id: 'p', name: 'Test persona', description: 'd', upgrades: [], tools: ['gate', 'hold', 'extra', 'execute_python', 'install_python_package', 'list_python_packages'], skills: [] };
const decl = (name: string): ToolDeclaration => ({ name, description: `${name}: waits until the test opens it.`, module: 'TestKit', pythonCallable: true, inputSchema: { type: 'object', properties: {} } });

/** A tool call that waits until the test opens it; `entered` resolves when Python reached it. */
function gate() {
  let open!: () => void;
  let reached!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const entered = new Promise<void>((r) => (reached = r));
  return { open, entered, pass: async () => (reached(), await opened, 'opened') };
}
const gates = { gate: gate(), hold: gate() };

const bus = createEventBus();
const runner = createToolRunner({ bus, persona });
const runtime = createPyodideRuntime({ poolSize: 1, defaultTimeoutMs: 60_000 }, { emit: (t, p) => bus.emit(t, p) });
const { api: python, tools } = createPythonTool({ runtime, runner, persona, bus, warn: () => undefined });
runner.registerTools([decl('gate'), decl('hold')], (name) => gates[name as keyof typeof gates].pass());
runner.registerTools(
  [
    { ...decl('install_python_package'), module: 'PythonTool', pythonCallable: false, inputSchema: { type: 'object', properties: { package: { type: 'string' } } } },
    { ...decl('list_python_packages'), module: 'PythonTool' },
  ],
  (name, args, call) => (tools as Record<string, (a: Record<string, unknown>, c: typeof call) => unknown>)[name]!(args, call),
);

/** `run`'s outcome, or 'still waiting' if it has not finished within 30 s (a failure bound, not a timing). */
const settled = <T>(run: Promise<T>) => Promise.race([run, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 30_000).unref())]);

before(() => primeSnapshot());
after(() => runtime.dispose());

/** The run's value, or its error as text. */
const valueOrError = (r: Awaited<ReturnType<typeof python.executePython>>) => (r.ok ? r.value : `${r.error.type}: ${r.error.message}`);

test("a session's first run does not start the shared runtime", async () => {
  assert.equal(valueOrError(await python.executePython({ code: '6 * 7', session: 'A' })), 42);
  assert.equal(runtime.getState().status, 'idle', 'the shared runtime (runs without a session) was left unstarted');
});

test("a session's run completes while the shared runtime is busy with a run of its own", async () => {
  const shared = python.executePython({ code: 'call_tool("gate")' });
  await gates.gate.entered;
  // Before, every run first asked the shared runtime whether it was ready, and that question
  // waited behind the shared run: the session's run could not finish until the gate opened.
  const first = await settled(python.executePython({ code: '2 + 2', session: 'A' }).then(valueOrError));
  gates.gate.open();
  assert.equal(first, 4, 'the session run finished while the shared run was blocked on the gate');
  assert.equal(valueOrError(await shared), 'opened');
});

test("a tool registered while the shared runtime is busy reaches a session's run without waiting for it", async () => {
  const shared = python.executePython({ code: 'call_tool("hold")' });
  await gates.hold.entered;
  runner.registerTools([decl('extra')], () => 'extra answered');
  const first = await settled(python.executePython({ code: 'from tools.test_kit import extra\nextra()', session: 'A' }).then(valueOrError));
  gates.hold.open();
  assert.equal(first, 'extra answered', 'the session run had the new tool module while the shared run was blocked');
  assert.equal(valueOrError(await shared), 'opened');
  assert.equal(valueOrError(await python.executePython({ code: 'from tools.test_kit import extra\nextra()' })), 'extra answered', 'the shared runtime got it too');
});

test("a session's packages are its own runtime's: installed there, listed there", async () => {
  const wheel = await buildWheel('armature_fixture_session', '2.0.0', 'VALUE = 1\n');
  const path = join(tempDir('session-wheel'), wheel.fileName);
  writeFileSync(path, wheel.bytes);
  await runtime.endSession('A'); // the pool's one runtime, for session B
  const installed = await runner.executeTool('install_python_package', { package: path }, { caller: 'test', session: 'B' });
  assert.ok(installed.ok, JSON.stringify(installed));
  const listedNow = (installed.value as { packages: { name: string }[] }).packages.map((p) => p.name);
  assert.ok(listedNow.includes('armature_fixture_session'), `the install answers with the session's packages: ${listedNow.join(', ')}`);
  const names = async (session?: string) => {
    const r = await runner.executeTool<{ packages: { name: string }[]; status: string }>('list_python_packages', {}, session === undefined ? { caller: 'test' } : { caller: 'test', session });
    assert.ok(r.ok, JSON.stringify(r));
    return { names: r.value.packages.map((p) => p.name), status: r.value.status };
  };
  const ofB = await names('B');
  assert.ok(ofB.names.includes('armature_fixture_session'), `session B lists what it installed: ${ofB.names.join(', ')}`);
  assert.equal(ofB.status, 'ready');
  assert.ok(!(await names()).names.includes('armature_fixture_session'), 'the shared runtime did not get it');
  // Python's own call_tool belongs to the session whose runtime runs it.
  const fromPython = await python.executePython({ code: '[p["name"] for p in call_tool("list_python_packages")["packages"]]', session: 'B' });
  assert.ok(fromPython.ok && (fromPython.value as string[]).includes('armature_fixture_session'), `call_tool from session B's run: ${JSON.stringify(fromPython).slice(0, 300)}`);
});

test("a session whose runtime cannot start gets the cause and what to do, at once", async () => {
  const broken = createPyodideRuntime({ indexURL: '/nonexistent/pyodide/' }, { emit: () => undefined });
  const tool = createPythonTool({ runtime: broken, runner: createToolRunner({ bus: createEventBus(), persona }), persona, bus: createEventBus(), warn: () => undefined });
  try {
    const r = await settled(tool.api.executePython({ code: '1', session: 'S' }));
    assert.ok(r !== 'still waiting' && !r.ok, JSON.stringify(r).slice(0, 300));
    assert.equal(r.error.type, 'RuntimeNotReady');
    assert.match(r.error.message, /nonexistent\/pyodide/, 'names what is missing');
    assert.match(r.hint ?? '', /could not start \(the message says why: fix that, then restart it/);
  } finally {
    await broken.dispose();
  }
});
