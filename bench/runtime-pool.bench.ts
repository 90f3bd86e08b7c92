// The runtime pool under load, side by side for pools of 1, 2 and 4 runtimes: 200 concurrent
// `execute_python` runs, one session each, every run making 100 `call_tool("read_file")` (a cheap
// built-in tool, through the ToolRunner like any call), on a booted system (confined child
// processes, Node's default). Per pool size: the time until all 200 are done and each run's
// latency (submitted -> result, so waiting for a runtime counts), medians and ranges over several
// repetitions; and the resident memory one idle runtime adds (the RSS of its child process).
import { readFileSync, readdirSync } from 'node:fs';
import { boot, type ArmatureSystem } from '../src/index.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

const suite = 'runtime-pool';
const RUNS = 200;
const CALLS = 100;
const REPEATS = Number(process.env.ARMATURE_BENCH_POOL_REPEATS ?? 5);
const SIZES = [1, 2, 4] as const;

const CODE = `n = 0\nfor i in range(${CALLS}):\n    n += len(call_tool("read_file", {"path": "pool/tiny.txt"})["content"])\nn`;

/** Resident memory of this process's children, by pid, in bytes (Linux `/proc`; empty elsewhere). */
function childRss(): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command (which may hold spaces): state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (rss) out.set(Number(pid), Number(rss) * 1024);
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

/** One burst: 200 runs at once, each in a session of its own that ends with it. */
async function burst(sys: ArmatureSystem, tag: string): Promise<{ totalMs: number; latencies: number[] }> {
  const t0 = performance.now();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const session = `${tag}-${i}`;
      const s0 = performance.now();
      const r = await sys.tools.executeTool<{ value: number }>('execute_python', { code: CODE }, { caller: 'test', session, timeoutMs: 600_000 });
      latencies.push(performance.now() - s0);
      sys.bus.emit('session:ended', { session });
      if (!r.ok || r.value.value !== CALLS * 4) throw new Error(`runtime-pool bench: run ${session} failed: ${JSON.stringify(r).slice(0, 400)}`);
    }),
  );
  return { totalMs: performance.now() - t0, latencies };
}

async function measure(size: number): Promise<{ totals: number[]; p50: number[]; p99: number[]; idleRss: number[] }> {
  const sys = await boot({
    dataDir: tempDir(`bench-pool-${size}`),
    config: { PyodideRuntime: { autoStart: false, poolSize: size, poolQueueLimit: RUNS, defaultTimeoutMs: 600_000 } },
  });
  try {
    const w = await sys.tools.executeTool('write_file', { path: 'pool/tiny.txt', content: 'tiny' });
    if (!w.ok) throw new Error(`runtime-pool bench: ${JSON.stringify(w)}`);
    // The shared runtime (runs without a session) is started first, so it is not counted below.
    const shared = await sys.tools.executeTool('execute_python', { code: '1 + 1' });
    if (!shared.ok) throw new Error(`runtime-pool bench: ${JSON.stringify(shared)}`);
    const before = childRss();
    // Warm-up: every runtime of the pool started (from the start-up snapshot) and used once.
    await burst(sys, 'warm');
    const idle = [...childRss()].filter(([pid]) => !before.has(pid)).map(([, rss]) => rss);
    const totals: number[] = [];
    const p50: number[] = [];
    const p99: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const b = await burst(sys, `r${r}`);
      totals.push(b.totalMs);
      p50.push(percentile(b.latencies, 50));
      p99.push(percentile(b.latencies, 99));
    }
    return { totals, p50, p99, idleRss: idle };
  } finally {
    await sys.dispose();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const results = new Map<number, Awaited<ReturnType<typeof measure>>>();
  for (const size of SIZES) results.set(size, await measure(size));
  const single = percentile(results.get(1)!.totals, 50);
  for (const size of SIZES) {
    const m = results.get(size)!;
    const name = `pool of ${size}`;
    rows.push(
      medianRow(suite, `${name}: ${RUNS} runs x ${CALLS} call_tool, all done`, m.totals, 'ms', size === 2 ? { text: `<= 0.6x pool of 1 (${(single * 0.6).toFixed(0)} ms)`, pass: (v) => v <= single * 0.6 } : undefined),
      medianRow(suite, `${name}: per-run latency p50`, m.p50, 'ms'),
      medianRow(suite, `${name}: per-run latency p99`, m.p99, 'ms'),
    );
    if (m.idleRss.length) rows.push(medianRow(suite, `${name}: RSS per idle runtime (child process)`, m.idleRss.map((b) => b / 1024 / 1024), 'MB'));
    if (size !== 1) rows.push(medianRow(suite, `${name}: all done, relative to pool of 1`, m.totals.map((t) => t / single), 'x'));
  }
  return rows;
}
