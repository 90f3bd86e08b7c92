// PyodideRuntime in Node: cold start and start from the start-up snapshot, warm round trip (the
// direct compile path and Pyodide's CodeRunner, each with and without the threads kept awake),
// stdout throughput, interrupt latency, and recovery from a stuck C loop (defaults, without the
// snapshot, and with a replacement worker started at the timeout), side by side.
import { createPyodideRuntime, type PyodideRuntimeApi, type PyodideRuntimeOptions } from '../upgrades/pyodide-runtime/runtime.ts';
import { forgetMemorySnapshots } from '../upgrades/pyodide-runtime/snapshot/snapshot-store.ts';
import { percentile, type BenchRow } from './types.ts';

const suite = 'pyodide-runtime';
const median = (xs: number[]) => percentile(xs, 50);

async function timeInit(samples: number, options: PyodideRuntimeOptions): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const rt = createPyodideRuntime(options, { emit: () => undefined });
    const t0 = performance.now();
    await rt.init();
    out.push(performance.now() - t0);
    await rt.dispose();
  }
  return out;
}

async function stdoutThroughput(megabytes: number): Promise<number> {
  let received = 0;
  const rt = createPyodideRuntime({}, { emit: (type, p) => type === 'python:stdout' && (received += (p as { chunk: string }).chunk.length) });
  try {
    await rt.init();
    const t0 = performance.now();
    const r = await rt.execute(`import sys\nline = "x" * 1023 + "\\n"\nfor _ in range(${megabytes * 1024}):\n    sys.stdout.write(line)`);
    const ms = performance.now() - t0;
    if (!r.ok || received !== megabytes * 1024 * 1024) throw new Error(`stdout bench: received ${received} bytes`);
    return megabytes / 1.048576 / (ms / 1000);
  } finally {
    await rt.dispose();
  }
}

async function interruptLatency(rt: PyodideRuntimeApi, samples: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const pending = rt.execute('while True:\n    pass');
    await new Promise((r) => setTimeout(r, 30));
    const t0 = performance.now();
    rt.interrupt();
    const r = await pending;
    out.push(performance.now() - t0);
    if (r.ok || r.error.type !== 'KeyboardInterrupt') throw new Error(`interrupt bench: ${JSON.stringify(r)}`);
  }
  return out;
}

/**
 * ms from the timeout firing until the runtime answers again, after a C loop that ignores
 * interrupts, with the default options (grace period included).
 */
async function recovery(options: PyodideRuntimeOptions): Promise<{ total: number }> {
  const rt = createPyodideRuntime(options, { emit: () => undefined });
  try {
    await rt.init();
    const timeoutMs = 100;
    const t0 = performance.now();
    await rt.execute('sum(range(10**13))', { timeoutMs });
    const r = await rt.execute('1+1');
    const total = performance.now() - t0 - timeoutMs;
    if (!r.ok) throw new Error('recovery bench: runtime not usable after restart');
    return { total };
  } finally {
    await rt.dispose();
  }
}

/**
 * Warm `execute('1+1')` round trips for several option sets at once, measured in interleaved
 * blocks so that background load falls on all of them alike.
 */
async function warmRoundTrips(variants: Record<string, PyodideRuntimeOptions>, perVariant: number): Promise<Record<string, number[]>> {
  const runtimes = await Promise.all(
    Object.entries(variants).map(async ([name, options]) => {
      const rt = createPyodideRuntime(options, { emit: () => undefined });
      await rt.init();
      for (let i = 0; i < 200; i++) await rt.execute('1+1');
      return [name, rt] as const;
    }),
  );
  const samples: Record<string, number[]> = {};
  const block = 200;
  try {
    for (let done = 0; done < perVariant; done += block) {
      for (const [name, rt] of runtimes) {
        // A few unmeasured runs after switching: the other runtimes' threads have gone to sleep.
        for (let i = 0; i < 10; i++) await rt.execute('1+1');
        const out = (samples[name] ??= []);
        for (let i = 0; i < block; i++) {
          const t0 = performance.now();
          await rt.execute('1+1');
          out.push(performance.now() - t0);
        }
      }
    }
  } finally {
    await Promise.all(runtimes.map(([, rt]) => rt.dispose()));
  }
  return samples;
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const cold = await timeInit(5, { snapshot: 'off' });
  rows.push({ suite, name: 'cold init, median of 5 (Node, no snapshot)', value: median(cold), unit: 'ms', range: [Math.min(...cold), Math.max(...cold)] });
  // The first runtime with a fresh memory takes the snapshot the later ones restore.
  forgetMemorySnapshots();
  const [first, ...restored] = await timeInit(6, { snapshot: 'memory' });
  rows.push({ suite, name: 'first init taking the start-up snapshot (Node)', value: first!, unit: 'ms' });
  rows.push({ suite, name: 'init from the start-up snapshot, median of 5 (Node)', value: median(restored), unit: 'ms', range: [Math.min(...restored), Math.max(...restored)] });
  const warm = await warmRoundTrips(
    {
      'direct compile, threads kept awake (defaults)': {},
      'direct compile, threads asleep (requestPollMs: 0)': { requestPollMs: 0 },
      'CodeRunner, threads kept awake (fastExecute: false)': { fastExecute: false },
      'CodeRunner, threads asleep': { fastExecute: false, requestPollMs: 0 },
    },
    2000,
  );
  for (const [name, xs] of Object.entries(warm)) {
    const p50 = percentile(xs, 50);
    const isDefault = name.endsWith('(defaults)');
    rows.push({ suite, name: `warm execute('1+1') p50, ${name}`, value: p50, unit: 'ms', ...(isDefault ? { target: '<= 0.4 ms', pass: p50 <= 0.4 } : {}) });
    rows.push({ suite, name: `warm execute('1+1') p99, ${name}`, value: percentile(xs, 99), unit: 'ms' });
  }
  const rt = createPyodideRuntime({}, { emit: () => undefined });
  try {
    await rt.init();
    const irq = await interruptLatency(rt, 30);
    rows.push({ suite, name: 'interrupt latency p50 (pure-Python loop)', value: percentile(irq, 50), unit: 'ms' });
    rows.push({ suite, name: 'interrupt latency p99 (pure-Python loop)', value: percentile(irq, 99), unit: 'ms', target: '<= 250 ms', pass: percentile(irq, 99) <= 250 });
  } finally {
    await rt.dispose();
  }
  const mbps = await stdoutThroughput(10);
  rows.push({ suite, name: 'stdout throughput to a subscriber (10 MB)', value: mbps, unit: 'MB/s', target: '>= 20 MB/s', pass: mbps >= 20 });
  const defaults = await recovery({});
  const noSnapshot = await recovery({ snapshot: 'off' });
  const prestart = await recovery({ prestartOnTimeout: true });
  rows.push({ suite, name: 'recovery after a stuck C loop (defaults: 1 s grace, then a worker from the snapshot)', value: defaults.total, unit: 'ms', target: '<= 4000 ms', pass: defaults.total <= 4000 });
  rows.push({ suite, name: "recovery after a stuck C loop (snapshot: 'off')", value: noSnapshot.total, unit: 'ms' });
  rows.push({ suite, name: 'recovery after a stuck C loop (prestartOnTimeout: true)', value: prestart.total, unit: 'ms' });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
