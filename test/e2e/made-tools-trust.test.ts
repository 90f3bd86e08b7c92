// Agent-made Python tools cannot reach each other (issue 28): the default upgrades booted for real
// (Pyodide in confined child processes), a persona whose tool changes come into force when their
// tests pass, driven through the ToolRunner as an agent would. A candidate that hijacks the
// interpreter it is imported in is rejected by its own test and leaves no trace; an approved tool
// still answers; other candidates' results are their own. Calls from Python go through the
// ToolRunner. Two MCP clients over HTTP do the same in made-tools-mcp.test.ts.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { ToolChangeAnswer } from '../../upgrades/made-tools/made-tools.ts';
import { CHAIN, FLAKY, HIJACK } from '../helpers/made-tool-fixtures.ts';
import { makerPersona, withPersonas } from '../helpers/persona-overlay.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { value } from '../helpers/tool-value.ts';

/** A loaded machine starts interpreters slowly: a gate's start is bounded by this, not by the tool's default. */
const SLOW = { timeoutMs: 180_000 };
const TOOLS = ['made.*', 'create_tool', 'update_tool', 'list_tools_made', 'execute_python', 'list_skills', 'read_skill'];

const bootMaker = (config: Record<string, Record<string, unknown>> = {}) => {
  const dataDir = tempDir('made-trust');
  return boot({ persona: 'maker', dataDir, platform: withPersonas(createNodePlatform({ dataDir }), [makerPersona(TOOLS)]), historySize: 20_000, config });
};

/** What a fresh session's interpreter would show of a hijack, were it shared. */
const TRACES = 'import sys, json, builtins\n["armature_made" in sys.modules, json.dumps(1), hasattr(builtins, "HIJACKED")]';
const CLEAN = [false, '1', false];

describe('a hijacking candidate, three calls in one boot', () => {
  let sys: ArmatureSystem;
  before(async () => {
    sys = await bootMaker();
  });
  after(() => sys?.dispose());
  const create = async (args: Record<string, unknown>) => value(await sys.tools.executeTool<ToolChangeAnswer>('create_tool', args, { caller: 'agent', ...SLOW }));

  test('is rejected by its own test; the approved tool still answers 42; no interpreter holds a trace', async () => {
    assert.equal((await create(HIJACK.victim)).status, 'active');
    const hijack = await create(HIJACK.hijacker);
    assert.equal(hijack.status, 'rejected', JSON.stringify(hijack));
    assert.deepEqual(hijack.tests.map((t) => t.error?.code), [undefined, 'UNEXPECTED_VALUE'], 'its own invoke answered its second test');
    assert.equal(value(await sys.tools.executeTool('made.victim', { a: 40, b: 2 }, { caller: 'cli' })), 42);
    // Neither the shared interpreter nor a session's has seen the candidate.
    assert.deepEqual(value(await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: TRACES }, { caller: 'agent' })).value, CLEAN);
    assert.deepEqual(value(await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: TRACES }, { caller: 'agent', session: 'after-hijack' })).value, CLEAN);
  });

  test("other candidates' results are their own: a correct tool passes, a raising one fails", async () => {
    const adder = await create(HIJACK.adder);
    assert.equal(adder.status, 'active', JSON.stringify(adder));
    assert.deepEqual(adder.tests.map((t) => [t.ok, t.value]), [[true, 3]]);
    const raiser = await create(HIJACK.raiser);
    assert.equal(raiser.status, 'rejected', JSON.stringify(raiser));
    assert.match(raiser.tests[0]!.error!.message, /ValueError: always fails/);
    assert.equal(value(await sys.tools.executeTool('made.victim', { a: 40, b: 2 })), 42);
  });
});

describe('calls of a made Python tool from Python are ToolRunner calls', () => {
  let sys: ArmatureSystem;
  before(async () => {
    // A canary that watches 20 calls and trips past 18 failures: all ten calls below are watched, none trips it.
    sys = await bootMaker({ MadeTools: { canaryCalls: 20, canaryFailureShare: 0.9 } });
  });
  after(() => sys?.dispose());

  test('ten flaky(x=-1) from Python: 10 calls and 10 errors in the stats and events, 10 watched by the canary', async () => {
    assert.equal(value(await sys.tools.executeTool<ToolChangeAnswer>('create_tool', FLAKY, { caller: 'agent', ...SLOW })).status, 'active');
    const seen = sys.bus.history(['tool:finished']).length;
    const code = [
      'from tools.made import flaky',
      'errors = []',
      'for i in range(5):',
      '    try:',
      '        flaky(x=-1)',
      '    except ToolError as e:',
      '        errors.append(e.code)',
      '    try:',
      '        call_tool("made.flaky", {"x": -1})',
      '    except ToolError as e:',
      '        errors.append(e.code)',
      'errors',
    ].join('\n');
    const r = value(await sys.tools.executeTool<{ value: unknown }>('execute_python', { code }, { caller: 'agent', session: 'flaky-caller', ...SLOW }));
    assert.deepEqual(r.value, Array(10).fill('ValueError'));
    const stats = sys.tools.getStats().find((s) => s.name === 'made.flaky')!;
    assert.deepEqual([stats.calls, stats.errors], [10, 10]);
    const finished = sys.bus.history(['tool:finished']).slice(seen).map((e) => e.payload).filter((p) => p.name === 'made.flaky');
    assert.deepEqual(finished.map((p) => [p.caller, p.ok]), Array(10).fill(['python', false]));
    const listed = value(await sys.tools.executeTool<{ tools: { name: string; calls: number; errors: number; canary?: { watched: number; failures: number } }[] }>('list_tools_made', {}));
    const flaky = listed.tools.find((t) => t.name === 'made.flaky')!;
    assert.deepEqual([flaky.calls, flaky.errors, flaky.canary?.watched, flaky.canary?.failures], [10, 10, 10, 10]);
  });
});

describe('no deadlock with one runtime for sessions', () => {
  let sys: ArmatureSystem;
  before(async () => {
    sys = await bootMaker({ PyodideRuntime: { poolSize: 1 } });
  });
  after(() => sys?.dispose());

  test("a session's Python calls a made tool that calls another made tool: it answers (a run waiting in call_tool holds no slot)", async () => {
    assert.equal(value(await sys.tools.executeTool<ToolChangeAnswer>('create_tool', CHAIN.inner, { caller: 'agent', ...SLOW })).status, 'active');
    const outer = value(await sys.tools.executeTool<ToolChangeAnswer>('create_tool', CHAIN.outer, { caller: 'agent', ...SLOW }));
    assert.equal(outer.status, 'active', JSON.stringify(outer));
    const r = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: 'from tools.made import outer\nouter(x=4)' }, { caller: 'agent', session: 'chain', ...SLOW });
    assert.equal(value(r).value, 41);
  });
});
