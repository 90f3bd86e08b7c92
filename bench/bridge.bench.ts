// call_tool: round trips and throughput for each transport side by side — Node (shared memory,
// async messages) and Chromium (shared memory, JSPI) in one run — with the targets.
import { createEventBus } from '../src/kernel/event-bus.ts';
import { createPyodideRuntime } from '../upgrades/pyodide-runtime/runtime.ts';
import { createPythonTool } from '../upgrades/python-tool/python-tool.ts';
import { createToolRunner } from '../upgrades/tool-runner/tool-runner.ts';
import type { Transport } from '../upgrades/pyodide-runtime/protocol/protocol.ts';
import { benchToolHandler, measureTransport } from './bridge-cases.ts';
import { withBenchPage } from './browser/run-page.ts';
import type { BenchRow } from './types.ts';

// The transports are measured in a worker of this process (isolation: 'thread'); the confined
// child process around them is measured side by side in confinement.bench.ts.
async function node(transport: Transport, polling = true): Promise<BenchRow[]> {
  const rt = createPyodideRuntime({ isolation: 'thread', transport, onToolCall: benchToolHandler, defaultTimeoutMs: 600_000, bridgePollMs: polling ? undefined : 0 }, { emit: () => undefined });
  try {
    await rt.init();
    if (!polling) return await measureTransport((code) => rt.execute(code), `Node ${transport} without polling`, { tinyOnly: true });
    return await measureTransport((code) => rt.execute(code), `Node ${transport}`, { isAsync: transport === 'async' });
  } finally {
    await rt.dispose();
  }
}

/** The whole path an agent's call takes: PythonTool, the ToolRunner (validation, allow-list, events, stats). */
async function nodeFullStack(): Promise<BenchRow[]> {
  const bus = createEventBus();
  const persona = { id: 'bench', name: 'bench', description: 'bench', upgrades: [], tools: ['*'], skills: [] };
  const runner = createToolRunner({ bus, persona });
  runner.registerTools([{ name: 'tiny', description: 'Returns 1.', module: 'Bench', pythonCallable: true, inputSchema: { type: 'object', properties: {} } }], () => 1);
  const rt = createPyodideRuntime({ isolation: 'thread', defaultTimeoutMs: 600_000 }, { emit: (t, p) => bus.emit(t, p) });
  createPythonTool({ runtime: rt, runner, persona, bus });
  try {
    await rt.init();
    return await measureTransport((code) => rt.execute(code), 'Node shared-memory through PythonTool + ToolRunner', { tinyOnly: true });
  } finally {
    await rt.dispose();
  }
}

async function chromium(): Promise<BenchRow[]> {
  return withBenchPage('bench/browser/bridge-page.ts', async (page, url) => {
    await page.goto(url);
    await page.waitForFunction('window.__bench || window.__benchError', { timeout: 900_000, polling: 500 });
    const error = await page.evaluate('window.__benchError');
    if (error) throw new Error(String(error));
    return (await page.evaluate('window.__bench')) as BenchRow[];
  });
}

function find(rows: BenchRow[], name: string): BenchRow {
  const r = rows.find((x) => x.name === name);
  if (!r) throw new Error(`bench row missing: ${name}`);
  return r;
}

export async function run(): Promise<BenchRow[]> {
  const rows = [
    ...(await node('shared-memory')),
    ...(await node('shared-memory', false)),
    ...(await nodeFullStack()),
    ...(await node('async')),
    ...(await chromium()),
  ];
  const target = (name: string, text: string, ok: (v: number) => boolean) => {
    const r = find(rows, name);
    r.target = text;
    r.pass = ok(r.value);
  };
  target('Node shared-memory: tiny round trip p50', '<= 40 µs', (v) => v <= 40);
  target('Chromium shared-memory: tiny round trip p50', '<= 80 µs', (v) => v <= 80);
  target('Node shared-memory: 10 MB as one text value', '>= 300 MB/s', (v) => v >= 300);
  target('Node shared-memory: 10 MB as rows (marshal)', '>= 100 MB/s', (v) => v >= 100);
  // The issue says "10 MB" without saying of what: both kinds are compared.
  for (const [kind, label] of [['one text value', 'text'], ['rows (marshal)', 'rows']] as const) {
    const sm = find(rows, `Chromium shared-memory: 10 MB as ${kind}`).value;
    const jspi = find(rows, `Chromium jspi: 10 MB as ${kind}`).value;
    rows.push({ suite: 'call_tool', name: `Chromium 10 MB ${label}: shared memory vs JSPI (speed-up)`, value: sm / jspi, unit: 'x', target: '>= 5x', pass: sm / jspi >= 5 });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
