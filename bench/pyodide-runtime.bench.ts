// PyodideRuntime in Node: cold start and start from a memory snapshot, warm round trip, stdout
// throughput, interrupt latency, and recovery from a stuck C loop (defaults, without the memory
// snapshot, and with a replacement worker started at the timeout), side by side.
import { createPyodideRuntime, type PyodideRuntimeApi, type PyodideRuntimeOptions } from '../upgrades/pyodide-runtime/runtime.ts';
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

async function roundTrips(rt: PyodideRuntimeApi, n: number): Promise<number[]> {
  for (let i = 0; i < 100; i++) await rt.execute('1+1');
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await rt.execute('1+1');
    out.push(performance.now() - t0);
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

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const cold = await timeInit(5, { memorySnapshot: false });
  rows.push({ suite, name: 'cold init, median of 5 (Node, no memory snapshot)', value: median(cold), unit: 'ms' });
  // The first runtime with the default options takes the snapshot the later ones restore.
  const [first, ...restored] = await timeInit(6, {});
  rows.push({ suite, name: 'first init taking the memory snapshot (Node)', value: first!, unit: 'ms' });
  rows.push({ suite, name: 'init from the memory snapshot, median of 5 (Node)', value: median(restored), unit: 'ms' });
  const rt = createPyodideRuntime({}, { emit: () => undefined });
  try {
    await rt.init();
    const rtt = await roundTrips(rt, 1000);
    rows.push({ suite, name: "warm execute('1+1') round trip p50", value: percentile(rtt, 50), unit: 'ms', target: '<= 1 ms', pass: percentile(rtt, 50) <= 1 });
    rows.push({ suite, name: "warm execute('1+1') round trip p99", value: percentile(rtt, 99), unit: 'ms' });
    const irq = await interruptLatency(rt, 30);
    rows.push({ suite, name: 'interrupt latency p50 (pure-Python loop)', value: percentile(irq, 50), unit: 'ms' });
    rows.push({ suite, name: 'interrupt latency p99 (pure-Python loop)', value: percentile(irq, 99), unit: 'ms', target: '<= 250 ms', pass: percentile(irq, 99) <= 250 });
  } finally {
    await rt.dispose();
  }
  const mbps = await stdoutThroughput(10);
  rows.push({ suite, name: 'stdout throughput to a subscriber (10 MB)', value: mbps, unit: 'MB/s', target: '>= 20 MB/s', pass: mbps >= 20 });
  const defaults = await recovery({});
  const noSnapshot = await recovery({ memorySnapshot: false });
  const prestart = await recovery({ prestartOnTimeout: true });
  rows.push({ suite, name: 'recovery after a stuck C loop (defaults: 1 s grace, then a worker from the snapshot)', value: defaults.total, unit: 'ms', target: '<= 4000 ms', pass: defaults.total <= 4000 });
  rows.push({ suite, name: 'recovery after a stuck C loop (memorySnapshot: false)', value: noSnapshot.total, unit: 'ms' });
  rows.push({ suite, name: 'recovery after a stuck C loop (prestartOnTimeout: true)', value: prestart.total, unit: 'ms' });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
