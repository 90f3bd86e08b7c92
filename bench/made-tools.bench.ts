// Agent-made tools: the time from create_tool to the tool answering its first call (Python and
// JavaScript, the gate's tests included), and the cost of one call of an agent-made JavaScript
// tool (a confined worker) next to a built-in one (a handler in the host) and an agent-made Python
// tool (one execute in the version's own interpreter), all through the ToolRunner of a booted
// system. And, side by side, a call from Python: of the made Python tool as it is now (a call_tool
// that crosses to the version's interpreter, issue 28), of the same function imported into the
// caller's interpreter (how it was called before: no ToolRunner, no boundary), and of a built-in
// tool through call_tool (the bridge alone).
import { boot } from '../src/kernel/boot/boot.ts';
import type { ToolResult } from '../src/kernel/tool-contract.ts';
import { createNodePlatform } from '../src/platform/node.ts';
import { makerPersona, withPersonas } from '../test/helpers/persona-overlay.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { percentile, type BenchRow } from './types.ts';

/** Tools created per language (each a new tool with the same code and 2 tests). */
const CREATED = 8;
/** Calls measured per tool, after warm-up ones. */
const CALLS = 300;
/** Calls from Python per measured loop, and loops per way of calling. */
const PY_CALLS = 200;
const PY_LOOPS = 5;

const schema = { type: 'object' as const, properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
const tests = [{ args: { n: 2 }, expect: 4 }, { args: { n: -1 }, expect: -2 }];
const js = { description: 'Doubles n.', input_schema: schema, language: 'javascript', code: 'export default async ({ n }) => n * 2;\n', tests };
const py = { description: 'Doubles n.', input_schema: schema, language: 'python', code: 'def {name}(n):\n    return n * 2\n', tests };

const stats = (suite: string, name: string, samples: number[], unit: string): BenchRow => ({
  suite,
  name,
  value: percentile(samples, 50),
  unit,
  range: [Math.min(...samples), Math.max(...samples)],
});

export async function run(): Promise<BenchRow[]> {
  const sys = await boot({
    persona: 'maker',
    platform: withPersonas(createNodePlatform({ dataDir: tempDir('bench-made') }), [makerPersona()]),
    historySize: 200,
  });
  const ok = <T>(r: ToolResult<T>, what: string): T => {
    if (!r.ok) throw new Error(`${what}: ${JSON.stringify(r.error)}`);
    return r.value;
  };
  try {
    // Python starts once, outside the measures: the time to callable is the tool's, not the runtime's.
    ok(await sys.tools.executeTool('execute_python', { code: '1' }), 'warm Python');
    const created = { javascript: [] as number[], python: [] as number[] };
    for (let i = 0; i < CREATED; i++) {
      for (const [language, spec] of [['javascript', js], ['python', py]] as const) {
        const name = `${language === 'python' ? 'py' : 'js'}_double_${i}`;
        const t0 = performance.now();
        const made = ok(await sys.tools.executeTool<{ status: string }>('create_tool', { ...spec, name, code: spec.code.replace('{name}', name) }, { caller: 'agent' }), `create ${name}`);
        if (made.status !== 'active') throw new Error(`${name} is ${made.status}`);
        if (ok(await sys.tools.executeTool(`made.${name}`, { n: 21 }), `call ${name}`) !== 42) throw new Error(`${name} answered wrong`);
        created[language].push(performance.now() - t0);
      }
    }

    // Per call, through the ToolRunner each time: a host handler, the JavaScript tool, the Python tool.
    sys.tools.registerTools([{ name: 'bench_double', description: 'Doubles n.', module: 'Bench', pythonCallable: true, inputSchema: schema }], (_n, args) => (args.n as number) * 2);
    const perCall = async (tool: string) => {
      for (let i = 0; i < 30; i++) ok(await sys.tools.executeTool(tool, { n: i }), tool);
      const out: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t0 = performance.now();
        ok(await sys.tools.executeTool(tool, { n: i }), tool);
        out.push((performance.now() - t0) * 1000);
      }
      return out;
    };
    const builtIn = await perCall('bench_double');
    const jsCall = await perCall('made.js_double_0');
    const pyCall = await perCall('made.py_double_0');
    // From Python, in one session, the three ways alternating: µs per call, measured in Python.
    const loop = (call: string, setup = '') =>
      `${setup}import time\nt0 = time.perf_counter()\nfor i in range(${PY_CALLS}):\n    ${call}\n(time.perf_counter() - t0) / ${PY_CALLS} * 1e6`;
    const ways = {
      now: loop('py_double_0(n=i)', 'from tools.made import py_double_0\n'),
      before: loop('py_double_0(n=i)', 'def py_double_0(n):\n    return n * 2\n'),
      bridge: loop('call_tool("bench_double", {"n": i})'),
    };
    const fromPython = { now: [] as number[], before: [] as number[], bridge: [] as number[] };
    for (let l = 0; l <= PY_LOOPS; l++) {
      for (const [way, code] of Object.entries(ways) as [keyof typeof ways, string][]) {
        const r = ok(await sys.tools.executeTool<{ value: number }>('execute_python', { code }, { caller: 'agent', session: 'bench-from-python', timeoutMs: 600_000 }), `from Python, ${way}`);
        if (l > 0) fromPython[way].push(r.value); // the first loop warms up
      }
    }
    const s = 'made-tools';
    return [
      stats(s, 'create_tool to first answer, JavaScript (2 tests, worker start)', created.javascript, 'ms'),
      stats(s, 'create_tool to first answer, Python (2 tests in an interpreter of their own, a warm spare; the first call starts the version\'s)', created.python, 'ms'),
      stats(s, 'call p50, built-in tool (host handler)', builtIn, 'µs'),
      stats(s, 'call p50, agent-made JavaScript tool (confined worker)', jsCall, 'µs'),
      { suite: s, name: 'agent-made JavaScript overhead over built-in, p50', value: percentile(jsCall, 50) - percentile(builtIn, 50), unit: 'µs' },
      stats(s, "call p50, agent-made Python tool (one execute in the version's interpreter)", pyCall, 'µs'),
      stats(s, `from Python: made Python tool, call_tool to its own interpreter (now), per call (${PY_CALLS} x ${PY_LOOPS})`, fromPython.now, 'µs'),
      stats(s, 'from Python: the same function imported into the caller (before issue 28), per call', fromPython.before, 'µs'),
      stats(s, 'from Python: a built-in tool through call_tool (the bridge alone), per call', fromPython.bridge, 'µs'),
    ];
  } finally {
    await sys.dispose();
  }
}
