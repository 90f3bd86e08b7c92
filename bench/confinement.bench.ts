// Confinement's cost, side by side: Python in Node's confined child process (isolation 'process',
// the default) against a worker thread of this process ('thread', unconfined), for the tiny
// call_tool round trip, 10 MB of rows, a warm execute round trip and start-up (cold, and from the
// start-up snapshot). Also what a confined worker for agent-made JavaScript costs per call.
import { createConfinedWorker } from '../src/sandbox/confined-worker.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from '../upgrades/pyodide-runtime/runtime.ts';
import { pythonChildEntries } from '../upgrades/pyodide-runtime/process-link.ts';
import { benchToolHandler, measureTransport } from './bridge-cases.ts';
import { percentile, type BenchRow } from './types.ts';

const suite = 'confinement';
type Isolation = 'process' | 'thread';

async function withRuntime<T>(isolation: Isolation, fn: (rt: PyodideRuntimeApi) => Promise<T>): Promise<T> {
  const rt = createPyodideRuntime({ isolation, onToolCall: benchToolHandler, defaultTimeoutMs: 600_000 }, { emit: () => undefined });
  try {
    await rt.init();
    return await fn(rt);
  } finally {
    await rt.dispose();
  }
}

async function executeRoundTrips(rt: PyodideRuntimeApi, n: number): Promise<number[]> {
  for (let i = 0; i < 100; i++) await rt.execute('1+1');
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await rt.execute('1+1');
    out.push(performance.now() - t0);
  }
  return out;
}

/** ms to a first result from a new runtime: cold (`memorySnapshot: false`), or from the snapshot an earlier runtime made. */
async function starts(isolation: Isolation, samples: number, memorySnapshot: boolean): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const rt = createPyodideRuntime({ isolation, memorySnapshot }, { emit: () => undefined });
    const t0 = performance.now();
    await rt.init();
    const r = await rt.execute('1+1');
    out.push(performance.now() - t0);
    if (!r.ok) throw new Error(`start bench: ${JSON.stringify(r)}`);
    await rt.dispose();
  }
  return out;
}

async function sandboxCalls(n: number): Promise<number[]> {
  const w = await createConfinedWorker({ name: 'bench', source: 'export default (args, ctx) => ctx.echo(args);', capabilities: { echo: (x: unknown) => x } });
  try {
    for (let i = 0; i < 200; i++) await w.call(['default'], [{ i }]);
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await w.call(['default'], [{ i }]);
      out.push((performance.now() - t0) * 1000);
    }
    return out;
  } finally {
    await w.terminate();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // From the sources the child's bundles are built once per process: not part of a start.
  const t0 = performance.now();
  await pythonChildEntries();
  rows.push({ suite, name: 'bundling the confined child from the sources (once per process; shipped prebuilt)', value: performance.now() - t0, unit: 'ms' });

  const tiny: Record<Isolation, number> = { process: 0, thread: 0 };
  const exec: Record<Isolation, number[]> = { process: [], thread: [] };
  for (const isolation of ['thread', 'process'] as const) {
    await withRuntime(isolation, async (rt) => {
      const t = await measureTransport((code) => rt.execute(code), `${isolation} isolation`, { tinyCalls: 5000, bulkRepeats: 3 });
      for (const r of t) rows.push({ ...r, suite, name: `call_tool, ${r.name}` });
      tiny[isolation] = t.find((r) => r.name.endsWith('tiny round trip p50'))!.value;
      exec[isolation] = await executeRoundTrips(rt, 1000);
    });
  }
  const ratio = tiny.process / tiny.thread;
  rows.push({ suite, name: 'call_tool tiny round trip: process / thread', value: ratio, unit: 'x', target: '<= 2x', pass: ratio <= 2 });
  for (const isolation of ['thread', 'process'] as const) {
    rows.push({ suite, name: `warm execute('1+1') p50, ${isolation} isolation`, value: percentile(exec[isolation], 50), unit: 'ms', range: [Math.min(...exec[isolation]), percentile(exec[isolation], 99)] });
  }

  for (const isolation of ['thread', 'process'] as const) {
    // The runtimes above made this process's snapshot for each isolation.
    const cold = await starts(isolation, 3, false);
    const warm = await starts(isolation, 3, true);
    rows.push({ suite, name: `start to a first result, cold (no snapshot), median of 3, ${isolation} isolation`, value: percentile(cold, 50), unit: 'ms', range: [Math.min(...cold), Math.max(...cold)] });
    rows.push({ suite, name: `start to a first result from the snapshot, median of 3, ${isolation} isolation`, value: percentile(warm, 50), unit: 'ms', range: [Math.min(...warm), Math.max(...warm)] });
  }

  const calls = await sandboxCalls(2000);
  rows.push({ suite, name: 'confined JavaScript worker: call + one capability round trip p50', value: percentile(calls, 50), unit: 'µs', range: [Math.min(...calls), percentile(calls, 99)] });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
