// Agent-made tools: the time from create_tool to the tool answering its first call (Python and
// JavaScript, the gate's tests included), and the cost of one call of an agent-made JavaScript
// tool (a confined worker) next to a built-in one (a handler in the host) and an agent-made Python
// tool (one execute in the runtime), all through the ToolRunner of a booted system.
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
    const s = 'made-tools';
    return [
      stats(s, 'create_tool to first answer, JavaScript (2 tests, worker start)', created.javascript, 'ms'),
      stats(s, 'create_tool to first answer, Python (2 tests, warm runtime)', created.python, 'ms'),
      stats(s, 'call p50, built-in tool (host handler)', builtIn, 'µs'),
      stats(s, 'call p50, agent-made JavaScript tool (confined worker)', jsCall, 'µs'),
      { suite: s, name: 'agent-made JavaScript overhead over built-in, p50', value: percentile(jsCall, 50) - percentile(builtIn, 50), unit: 'µs' },
      stats(s, 'call p50, agent-made Python tool (one execute)', pyCall, 'µs'),
    ];
  } finally {
    await sys.dispose();
  }
}
