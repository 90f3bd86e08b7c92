// Confinement's cost, side by side: Python in Node's confined child process (isolation 'process',
// the default) against a worker thread of this process ('thread', unconfined), for the tiny
// call_tool round trip, 10 MB of rows, a warm execute round trip and start-up (cold, and from the
// start-up snapshot). Also what a confined worker for agent-made JavaScript costs per call.
import { join } from 'node:path';
import { createConfinedWorker } from '../src/sandbox/confined-worker.ts';
import { openDirectoryCache } from '../src/platform/node-cache.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from '../upgrades/pyodide-runtime/runtime.ts';
import { pythonChildEntries } from '../upgrades/pyodide-runtime/process/process-link.ts';
import { forgetMemorySnapshots } from '../upgrades/pyodide-runtime/snapshot/snapshot-store.ts';
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

/**
 * ms to a first result from a new runtime: cold (`snapshot: 'off'`), from the snapshot an earlier
 * runtime of this process made (`memory`), or from the one persisted in a cache folder as a new
 * process finds it (`persist`, this process's memory forgotten first; made by a first, unmeasured start).
 */
async function starts(isolation: Isolation, samples: number, snapshot: 'off' | 'memory' | 'persist'): Promise<number[]> {
  const snapshotCache = snapshot === 'persist' ? openDirectoryCache(join(tempDir('bench-confinement-snapshot'), 'cache')) : undefined;
  const out: number[] = [];
  for (let i = snapshot === 'persist' ? -1 : 0; i < samples; i++) {
    if (snapshot === 'persist') forgetMemorySnapshots();
    const rt = createPyodideRuntime({ isolation, snapshot, snapshotCache }, { emit: () => undefined });
    const t0 = performance.now();
    await rt.init();
    const r = await rt.execute('1+1');
    if (i >= 0) out.push(performance.now() - t0);
    if (!r.ok) throw new Error(`start bench: ${JSON.stringify(r)}`);
    if (i >= 0 && snapshot !== 'off' && rt.getState().fromSnapshot !== true) throw new Error(`start bench: ${isolation} did not restore the ${snapshot} snapshot`);
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

  const exec: Record<Isolation, number[]> = { process: [], thread: [] };
  const tiny: Record<Isolation, number[]> = { process: [], thread: [] };
  await withRuntime('thread', (thread) =>
    withRuntime('process', async (proc) => {
      const runtimes = { thread, process: proc };
      // Alternating rounds, so load from elsewhere on the machine falls on both alike.
      for (let round = 0; round < 5; round++) {
        for (const isolation of ['thread', 'process'] as const) {
          const t = await measureTransport((code) => runtimes[isolation].execute(code), isolation, { tinyOnly: true, tinyCalls: 3000 });
          tiny[isolation].push(t[0]!.value);
          exec[isolation].push(percentile(await executeRoundTrips(runtimes[isolation], 1000), 50));
        }
      }
      for (const isolation of ['thread', 'process'] as const) {
        const t = await measureTransport((code) => runtimes[isolation].execute(code), `${isolation} isolation`, { bulkRepeats: 3, tinyCalls: 3000 });
        for (const r of t.filter((x) => !/tiny/.test(x.name))) rows.push({ ...r, suite, name: `call_tool, ${r.name}` });
      }
    }),
  );
  for (const isolation of ['thread', 'process'] as const) {
    const xs = tiny[isolation];
    rows.push({ suite, name: `call_tool tiny round trip p50, ${isolation} isolation (median of 5 alternating rounds)`, value: percentile(xs, 50), unit: 'µs', range: [Math.min(...xs), Math.max(...xs)] });
  }
  const ratio = percentile(tiny.process, 50) / percentile(tiny.thread, 50);
  rows.push({ suite, name: 'call_tool tiny round trip: process / thread', value: ratio, unit: 'x', target: '<= 2x', pass: ratio <= 2 });
  for (const isolation of ['thread', 'process'] as const) {
    const xs = exec[isolation];
    rows.push({ suite, name: `warm execute('1+1') round trip p50, ${isolation} isolation (median of 5 alternating rounds)`, value: percentile(xs, 50), unit: 'ms', range: [Math.min(...xs), Math.max(...xs)] });
  }

  for (const isolation of ['thread', 'process'] as const) {
    // The runtimes above made this process's snapshot for each isolation.
    const cold = await starts(isolation, 3, 'off');
    const warm = await starts(isolation, 3, 'memory');
    const persisted = await starts(isolation, 3, 'persist');
    const row = (what: string, v: number[]): BenchRow => ({ suite, name: `start to a first result, ${what}, median of 3, ${isolation} isolation`, value: percentile(v, 50), unit: 'ms', range: [Math.min(...v), Math.max(...v)] });
    rows.push(row('cold (no snapshot)', cold), row("from this process's snapshot", warm), row('from the persisted snapshot (a new process)', persisted));
  }

  const calls = await sandboxCalls(2000);
  rows.push({ suite, name: 'confined JavaScript worker: call + one capability round trip p50', value: percentile(calls, 50), unit: 'µs', range: [Math.min(...calls), percentile(calls, 99)] });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
