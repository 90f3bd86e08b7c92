// PythonTool and the call_tool bridge, end to end: a real ToolRunner, a real Pyodide worker.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus, type AnyEventRecord } from '../../src/kernel/event-bus.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from '../pyodide-runtime/runtime.ts';
import { createPythonTool } from './python-tool.ts';
import type { PythonToolApi } from './python-tool-types.ts';
import { BRIEF_OMITS, describeExecutePythonResult, EXECUTE_PYTHON_FAILURE, EXECUTE_PYTHON_SUCCESS, type ResultShape } from './result-shape.ts';
import { primeSnapshot } from '../../test/helpers/snapshot.ts';
import { toAnswer } from '../../src/bridge/marshal.ts';

const decl = (name: string, module: string, properties: Record<string, unknown> = {}, extra: Partial<ToolDeclaration> = {}): ToolDeclaration => ({
  name,
  description: `${name} tool.`,
  module,
  pythonCallable: true,
  inputSchema: { type: 'object', properties },
  ...extra,
});

const persona: Persona = { id: 'p', name: 'Test persona', description: 'd', upgrades: [], tools: ['echo', 'fail', 'big_text', 'big_rows', 'bad_rows', 'slow', 'query', 'nested_run', 'nested_install', 'nested_list', 'later_run', 'execute_python', 'install_python_package', 'list_python_packages', 'list_skills', 'read_skill'], skills: [] };

describe('PythonTool with the shared-memory bridge', () => {
  const bus = createEventBus({ historySize: 5000 });
  let runtime: PyodideRuntimeApi;
  let python: PythonToolApi;
  let tools: ReturnType<typeof createPythonTool>['tools'];
  const runner = createToolRunner({ bus, persona });
  const warnings: string[] = [];
  let laterRun: Promise<unknown> | undefined;

  before(async () => {
    // The bridge is tested on an interpreter restored from the start-up snapshot, as most starts are.
    await primeSnapshot();
    runtime = createPyodideRuntime({}, { emit: (t, p) => bus.emit(t, p) });
    const made = createPythonTool({ runtime, runner, persona, bus, slowCallMs: 150, warn: (m) => warnings.push(m) });
    python = made.api;
    tools = made.tools;
    runner.registerTools(
      [
        decl('echo', 'TestKit', { value: {} }),
        decl('fail', 'TestKit'),
        decl('big_text', 'TestKit', { mb: { type: 'number' } }),
        decl('big_rows', 'TestKit', { n: { type: 'integer' } }),
        decl('bad_rows', 'TestKit'),
        decl('slow', 'TestKit'),
        decl('secret', 'TestKit'),
        decl('nested_run', 'TestKit'),
        decl('nested_install', 'TestKit'),
        decl('nested_list', 'TestKit'),
        decl('later_run', 'TestKit'),
      ],
      async (name, args) => {
        switch (name) {
          case 'nested_run': {
            // Asks the runtime that is running the caller for a run, after an await.
            await new Promise((r) => setTimeout(r, 5));
            const r = await runtime.execute('1 + 1');
            if (!r.ok) throw new ArmatureError(r.error.type, r.error.message, { hint: r.hint });
            return r.value;
          }
          case 'nested_install': {
            const r = await runtime.installPackage('anything');
            if (!r.ok) throw new ArmatureError(r.error.type, r.error.message, { hint: r.hint });
            return r.installed;
          }
          case 'nested_list':
            return (await runtime.listPackages()).length;
          case 'later_run':
            // Work left for after the call: not part of the cycle, so it runs once the caller ends.
            laterRun = new Promise((r) => setTimeout(r, 5)).then(() => runtime.execute('6 * 7'));
            return 'scheduled';
          case 'echo':
            return args.value;
          case 'fail':
            throw new ArmatureError('NOPE', 'this tool always fails', { hint: 'try echo instead' });
          case 'big_text':
            return 'x'.repeat(Math.round((args.mb as number) * 1024 * 1024));
          case 'big_rows':
            return Array.from({ length: args.n as number }, (_, i) => ({ id: i, name: `row ${i}`, score: i / 2, ok: i % 2 === 0 }));
          case 'bad_rows':
            // Long enough to go in parts; a value Python cannot receive sits in a later part.
            return Array.from({ length: 20000 }, (_, i) => (i === 15000 ? { id: i, oops: () => 1 } : { id: i }));
          case 'slow':
            await new Promise((r) => setTimeout(r, 250));
            return 'done';
          default:
            return 'should not be reachable';
        }
      },
    );
    const pyDecls = [
      decl('execute_python', 'PythonTool', { code: { type: 'string' } }, { pythonCallable: false }),
      decl('install_python_package', 'PythonTool', { package: { type: 'string' } }, { pythonCallable: false }),
      decl('list_python_packages', 'PythonTool'),
      decl('list_skills', 'PythonTool'),
      decl('read_skill', 'PythonTool', { namespace: { type: 'string' } }),
    ];
    runner.registerTools(pyDecls, (name, args, call) => (tools as Record<string, (a: Record<string, unknown>, c: typeof call) => unknown>)[name]!(args, call));
  });
  after(() => runtime.dispose());

  const run = async (code: string) => {
    const r = await python.executePython({ code });
    if (!r.ok) assert.fail(`${r.error.type}: ${r.error.message}\n${r.error.traceback}`);
    return r.value;
  };

  test('round trips keep every JSON type: nested, unicode, ints big and small, floats, None, empty containers', async () => {
    await runtime.init();
    assert.equal(runtime.getState().fromSnapshot, true, 'these tests run on a restored interpreter');
    const v = await run(`
cases = [
    {"nested": {"list": [1, [2, [3, {"deep": True}]]], "none": None}},
    "héllo ✓ 𝄞 — ünïcode",
    0, -1, 2**31, -2**31 - 1, 2**53 - 1, 2**80,
    0.1, -2.5e-300, 1e300,
    None, True, False,
    [], {}, "",
]
back = [call_tool("echo", {"value": c}) for c in cases]
assert all(type(a) == type(b) for a, b in zip(cases, back)), [(type(a), type(b)) for a, b in zip(cases, back)]
back == cases`);
    assert.equal(v, true);
  });

  test('results are native Python objects, never JsProxy', async () => {
    const v = await run(`
r = call_tool("echo", {"value": {"a": [1, {"b": "c"}]}})
(type(r).__name__, type(r["a"]).__name__, type(r["a"][1]).__name__)`);
    assert.deepEqual(v, ['dict', 'list', 'dict']);
  });

  test('a failing tool raises ToolError with the tool name, code, message and hint', async () => {
    const v = await run(`
try:
    call_tool("fail")
except ToolError as e:
    out = (e.tool, e.code, e.message, e.hint, str(e))
out`);
    assert.deepEqual(v, ['fail', 'NOPE', 'this tool always fails', 'try echo instead', 'fail failed [NOPE]: this tool always fails (hint: try echo instead)']);
    const bad = await run(`
try:
    call_tool("echo", {"value": 1, "nope": 2}) if False else call_tool("ecko")
except ToolError as e:
    out = (e.code, e.message)
out`);
    assert.deepEqual(bad, ['UNKNOWN_TOOL', '[executeTool] no tool named "ecko"; did you mean "echo"?']);
  });

  test('bad arguments are refused in Python with a clear TypeError', async () => {
    const v = await run(`
msgs = []
for a in ([1, 2], {"x": object()}):
    try:
        call_tool("echo", a)
    except TypeError as e:
        msgs.append(str(e))
msgs`);
    assert.match((v as string[])[0]!, /args must be a dict of arguments, got list/);
    assert.match((v as string[])[1]!, /arguments must be JSON data/);
  });

  test("the persona's allow-list applies to calls from Python", async () => {
    const v = await run(`
try:
    call_tool("secret")
except ToolError as e:
    out = (e.code, e.hint)
out`);
    assert.equal((v as string[])[0], 'TOOL_NOT_ALLOWED');
  });

  test('tools that need the busy runtime are refused with an error naming the cycle, never a hang', async () => {
    const v = await run(`
out = []
for name, args in (("execute_python", {"code": "1"}), ("install_python_package", {"package": "x"})):
    try:
        call_tool(name, args)
    except ToolError as e:
        out.append((e.code, e.message))
out`);
    const [[code1, msg1], [code2]] = v as [string, string][];
    assert.equal(code1, 'NOT_CALLABLE_FROM_PYTHON');
    assert.match(msg1!, /execute_python -> call_tool\("execute_python"\) -> PyodideRuntime/);
    assert.equal(code2, 'NOT_CALLABLE_FROM_PYTHON');
    // list_python_packages answers from the runtime's last known state, so it is safe from Python.
    assert.ok(Array.isArray(((await run('call_tool("list_python_packages")')) as { packages: unknown[] }).packages));
  });

  test('a callable tool that asks the busy runtime for work gets a CycleError naming the cycle; work it leaves for later runs', async () => {
    const v = (await run(`
out = []
for name in ("nested_run", "nested_install"):
    try:
        call_tool(name)
        out.append("no error")
    except ToolError as e:
        out.append([e.code, e.message, e.hint])
out.append(call_tool("nested_list"))
out.append(call_tool("later_run"))
out`)) as [[string, string, string], [string, string, string], number, string];
    assert.equal(v[0][0], 'CycleError');
    assert.match(v[0][1], /python -> call_tool\("nested_run"\) -> PyodideRuntime\.execute -> \(waits for the same run\)/);
    assert.match(v[0][2], /cannot use the Python runtime that is running that code/);
    assert.equal(v[1][0], 'CycleError');
    assert.match(v[1][1], /PyodideRuntime\.installPackage/);
    assert.equal(typeof v[2], 'number', 'listPackages answers from the last known list');
    assert.equal(v[3], 'scheduled');
    const later = (await laterRun) as { ok: boolean; value?: unknown };
    assert.deepEqual([later.ok, later.value], [true, 42]);
  });

  test('10 MB results arrive whole, as text and as rows', async () => {
    const v = await run(`
t = call_tool("big_text", {"mb": 10})
rows = call_tool("big_rows", {"n": 100000})
(len(t), t[:3], len(rows), rows[99999])`);
    assert.deepEqual(v, [10 * 1024 * 1024, 'xxx', 100000, { id: 99999, name: 'row 99999', score: 49999.5, ok: false }]);
  });

  test('a long list arrives in parts, in order; an unsendable item in a later part raises ToolError, and the bridge goes on', async () => {
    const v = await run(`
rows = call_tool("big_rows", {"n": 30000})
try:
    call_tool("bad_rows")
    err = None
except ToolError as e:
    err = (e.code, e.message)
(rows == [{"id": i, "name": f"row {i}", "score": i / 2, "ok": i % 2 == 0} for i in range(30000)], err, call_tool("echo", {"value": [1, 2]}))`);
    const [same, err, echo] = v as [boolean, [string, string], number[]];
    assert.equal(same, true);
    assert.equal(err[0], 'UNSENDABLE_RESULT');
    // In a worker of this process the parts say which items; a confined child gets the value whole.
    assert.match(err[1], /cannot send a function to Python \(at \$\[\d+\]\.oops\)( \(in items \d+\.\.\d+\))?/);
    assert.deepEqual(echo, [1, 2]);
  });

  test('a run interrupted while a long answer arrives leaves the bridge usable', async () => {
    const r = await python.executePython({ code: 'while True:\n    rows = call_tool("big_rows", {"n": 200000})', timeout_ms: 1500 });
    assert.equal(!r.ok && r.error.type, 'TimeoutError');
    assert.deepEqual(await run('call_tool("echo", {"value": "after"})'), 'after');
    assert.equal(await run('len(call_tool("big_rows", {"n": 50000}))'), 50000);
  });

  test('every call emits tool-bridge:called; slow calls also a warning event and a log line', async () => {
    const seen: AnyEventRecord[] = [];
    const sub = bus.onAny((r) => r.type.startsWith('tool-bridge:') && seen.push(r));
    await run('call_tool("echo", {"value": "abc"})\ncall_tool("slow")');
    sub.dispose();
    const called = seen.filter((r) => r.type === 'tool-bridge:called').map((r) => r.payload as { name: string; argBytes: number; resultBytes: number; ok: boolean });
    assert.deepEqual(called.map((c) => [c.name, c.ok]), [['echo', true], ['slow', true]]);
    // Sizes as they crossed: Python's compact JSON, and the answer's marshal document.
    assert.equal(called[0]!.argBytes, JSON.stringify({ value: 'abc' }).length);
    assert.equal(called[0]!.resultBytes, toAnswer(0, 'abc').byteLength);
    assert.deepEqual(seen.filter((r) => r.type === 'tool-bridge:slow').map((r) => (r.payload as { name: string }).name), ['slow']);
    assert.match(warnings.at(-1)!, /call_tool\("slow"\) took \d+ ms \(threshold 150 ms\)/);
    // Calls from Python show in the ToolRunner's events as coming from Python.
    assert.ok(bus.history(['tool:finished']).some((r) => r.payload.name === 'echo' && r.payload.caller === 'python'));
  });

  test('generated modules: from tools.<namespace> import <tool> works with keyword checks', async () => {
    const v = await run(`
from tools.test_kit import echo
import inspect
(echo(value=[1, "two"]), str(inspect.signature(echo)))`);
    assert.deepEqual(v, [[1, 'two'], '(value: typing.Any | None = None, *, instance_id: str | None = None) -> Any']);
    const r = await python.executePython({ code: 'from tools.test_kit import echo\necho(valeu=1)' });
    assert.equal(!r.ok && r.error.type, 'TypeError');
    assert.match(!r.ok ? r.error.message : '', /unexpected keyword argument 'valeu'/);
  });

  test('generated modules follow the allow-list as it changes in place (a persona overlay) and tools as they come and go', async () => {
    const has = `import tools.test_kit as k\n[hasattr(k, n) for n in ("secret", "late")]`;
    assert.deepEqual(await run(has), [false, false]);
    persona.tools.push('secret', 'late');
    const late = runner.registerTools([decl('late', 'TestKit')], () => 'late');
    try {
      assert.deepEqual(await run(has), [true, true]);
      late.dispose();
      assert.deepEqual(await run(has), [true, false]);
    } finally {
      persona.tools.splice(persona.tools.indexOf('secret'), 2);
      late.dispose();
    }
    assert.deepEqual(await run(has), [false, false]);
  });

  test('instance_id picks one registration of a tool registered several times, from call_tool and generated modules', async () => {
    const a = runner.registerTools([decl('query', 'TestKit', { q: { type: 'string' } })], (_n, args) => `prod: ${args.q}`, { instance: 'prod' });
    const b = runner.registerTools([decl('query', 'TestKit', { q: { type: 'string' } })], (_n, args) => `staging: ${args.q}`, { instance: 'staging' });
    try {
      const v = await run(`
from tools.test_kit import query
out = [call_tool("query", {"q": "x"}, instance_id="prod"), query(q="y", instance_id="staging")]
try:
    query(q="z")
except ToolError as e:
    out.append((e.code, e.hint))
out`);
      assert.deepEqual(v, ['prod: x', 'staging: y', ['AMBIGUOUS_INSTANCE', 'Pass instance_id as one of: prod, staging.']]);
      assert.match(python.readSkill('test_kit'), /Instances: `prod`, `staging` — pass `instance_id=` to choose\./);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  test('skills: list_skills, read_skill and the system prompt come from the registered tools', async () => {
    const skills = python.listSkills();
    assert.deepEqual(skills.map((s) => s.namespace), ['python', 'test_kit']);
    assert.match(python.readSkill('test_kit'), /## echo\(value=None\)/);
    assert.throws(() => python.readSkill('nope'), /no skill "nope"; skills: python, test_kit/);
    const prompt = python.getSystemPrompt();
    assert.match(prompt, /You are Test persona/);
    assert.match(prompt, /^test_kit: (from tools\.test_kit import )?bad_rows, big_rows, big_text, echo, fail, later_run, nested_install, nested_list, nested_run, slow$/m);
    assert.doesNotMatch(prompt, /secret/);
    const stats = python.getPromptStats();
    assert.ok(stats.promptChars > 0 && stats.promptChars <= stats.schemaChars, JSON.stringify(stats));
    assert.equal(python.getPromptPlan().mode, 'python-compact');
    // A persona's skills pick the namespaces its documents cover; its tools stay callable.
    const narrow = { ...persona, id: 'narrow', name: 'Narrow persona', skills: ['python'] };
    // Its own (never started) runtime: a PythonTool takes over its runtime's call_tool handler.
    const scoped = createPythonTool({ runtime: createPyodideRuntime({}, { emit: () => undefined }), runner, persona: narrow, bus }).api;
    assert.deepEqual(scoped.listSkills().map((s) => s.namespace), ['python']);
    assert.doesNotMatch(scoped.getSkillIndex(), /test_kit/);
    assert.throws(() => scoped.readSkill('test_kit'), /no skill "test_kit"; skills: python/);
    assert.doesNotMatch(scoped.getSystemPrompt(), /test_kit/);
    // A persona that may not call read_skill is not told to.
    const noGuides = { ...persona, id: 'no-guides', name: 'No guides', tools: persona.tools.filter((t) => t !== 'read_skill') };
    assert.match(python.getSystemPrompt(), /read_skill/);
    assert.doesNotMatch(python.getSystemPrompt(noGuides), /read_skill/);
    assert.ok(scoped.getPromptStats().schemaChars < stats.schemaChars);
  });

  test('the prompt describes execute_python\'s result exactly as a real failing and a real succeeding run return it', async () => {
    const prompt = python.getSystemPrompt();
    assert.ok(prompt.includes(describeExecutePythonResult()));
    assert.match(prompt, /`\{ ok: false, error: \{ code, message, details: \{ traceback, stdout, stderr, … \} \}, hint\?, … \}`/);
    // Every field the sentence leaves out is a field of the shapes (a rename in the types shows here).
    const fields = (shape: ResultShape): string[] => [...Object.keys(shape.fields), ...Object.values(shape.nested ?? {}).flatMap(fields)];
    for (const name of BRIEF_OMITS) assert.ok([...fields(EXECUTE_PYTHON_SUCCESS), ...fields(EXECUTE_PYTHON_FAILURE)].includes(name), name);
    assert.doesNotMatch(prompt, /error: \{ type, message, traceback \}/);
    /** The fields of `value` as `shape` lists them: every required one there, nothing it does not list. */
    const conforms = (value: Record<string, unknown>, shape: ResultShape, path: string) => {
      const present = Object.keys(value).filter((k) => value[k] !== undefined);
      for (const k of present) assert.ok(k in shape.fields, `${path}.${k} is in the result but not in the prompt`);
      for (const [k, kind] of Object.entries(shape.fields)) if (kind === 'required') assert.ok(present.includes(k), `${path}.${k} is in the prompt but not in the result`);
      for (const [k, nested] of Object.entries(shape.nested ?? {})) if (value[k] !== undefined) conforms(value[k] as Record<string, unknown>, nested, `${path}.${k}`);
    };
    for (const code of ['def f():\n    return 1/0\nf()', 'x = (1,']) {
      const failed = await runner.executeTool('execute_python', { code });
      assert.equal(failed.ok, false);
      conforms(failed as unknown as Record<string, unknown>, EXECUTE_PYTHON_FAILURE, 'result');
    }
    const ok = await runner.executeTool('execute_python', { code: 'print(1)\n2', install_packages: [], sync_workspace: false });
    assert.equal(ok.ok, true);
    conforms(ok as unknown as Record<string, unknown>, EXECUTE_PYTHON_SUCCESS, 'result');
  });

  test('execute_python as a tool: ok:false with the Python error type as code, traceback in details, and a hint', async () => {
    const r = await runner.executeTool('execute_python', { code: 'import nothing_here' });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.code, 'ModuleNotFoundError');
    assert.match((r.error.details as { traceback: string }).traceback, /File "<python:\d+>", line 1, in <module>\n    import nothing_here/);
    assert.match(r.hint!, /install_python_package/);
    const ok = await runner.executeTool<{ value: number; stdout: string }>('execute_python', { code: 'print("hi")\n40 + 2' });
    assert.deepEqual(ok.ok && [ok.value.value, ok.value.stdout], [42, 'hi\n']);
  });

  test('execute_python runs in the call\'s session with its own globals and call_tool; a session among the arguments is ignored', async () => {
    const py = async (code: string, session?: string, extra: Record<string, unknown> = {}) => {
      const r = await runner.executeTool<{ value: unknown }>('execute_python', { code, ...extra }, session === undefined ? {} : { session });
      return r.ok ? r.value.value : r.error.code;
    };
    assert.equal(await py('who = call_tool("echo", {"value": "one"})\nwho', 'one'), 'one');
    assert.equal(await py('who', 'two'), 'NameError');
    assert.equal(await py('who = "two"\nwho', 'two'), 'two');
    assert.equal(await py('who', 'one'), 'one');
    assert.equal(await py('who'), 'NameError', 'the shared session has globals of its own');
    assert.equal(await py('who', undefined, { session: 'one' }), 'NameError', 'arguments cannot pick a session');
    await runtime.endSession('one');
    await runtime.endSession('two');
  });

  test('install_packages: installed in order, stopping at the first failure with the real error', async () => {
    const r = await python.executePython({ code: '1', install_packages: ['surely-missing-package-a', 'never-reached'] });
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error.message : '', /installing surely-missing-package-a failed: surely-missing-package-a is not in the Pyodide package index/);
  });

  test('statistics count executions, successes, failures and errors', () => {
    const s = python.getStats();
    assert.ok(s.executions >= 10);
    assert.ok(s.failures >= 2);
    assert.equal(s.successes + s.failures, s.executions);
    assert.ok(s.successRate! > 0 && s.successRate! < 1);
    assert.equal(s.errors[0]!.type, 'PackageNotFoundError');
    assert.ok(s.lastExecution!.at > 0);
  });
});
