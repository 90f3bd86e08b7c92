// The runtime pool under load, side by side for pools of 1, 2 and 4 runtimes: 200 concurrent
// `execute_python` runs, one session each, every run making 100 `call_tool("read_file")` (a cheap
// built-in tool, through the ToolRunner like any call), on a booted system (confined child
// processes, Node's default). Per pool size: the time until all 200 are done and each run's
// latency (submitted -> result, so waiting for a runtime counts), medians and ranges over several
// repetitions; the CPU the host and the children used for it (each side does ~25 µs of work per
// call_tool and spins between calls, since waking a sleeping thread costs more on virtual
// machines; the host's one thread serves every runtime) and the time their threads were ready to
// run but waited for a core (the cost of more busy threads than cores); the same for 200 runs of
// Python alone (no call_tool), where the runtimes share nothing; the same for 200 runs of a
// constant (the per-run path alone: a runtime bound to the session, the run sent and answered,
// the globals reset before the next session's run, in the worker with that run's message; each a
// message through the child's main thread and its worker); and the resident memory one idle
// runtime adds (the RSS of its child process).
import { boot, type ArmatureSystem } from '../src/index.ts';
import { CLOCK_TICK_MS, childPids, cpuTicks, residentBytes, schedTimes } from '../src/platform/proc/linux-proc.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

const suite = 'runtime-pool';
const RUNS = 200;
const CALLS = 100;
const REPEATS = Number(process.env.ARMATURE_BENCH_POOL_REPEATS ?? 5);
const SIZES = [1, 2, 4] as const;

const CODE = `n = 0\nfor i in range(${CALLS}):\n    n += len(call_tool("read_file", {"path": "pool/tiny.txt"})["content"])\nn`;
/** Python alone, ~10 ms a run: no call_tool, so nothing of the host's is shared between runtimes. */
const COMPUTE = 'n = 0\nfor i in range(20000):\n    n += len(str(i)) * 3 % 7\nn';
const COMPUTE_VALUE = 57370;
/** The per-run path alone (a session bound, the run sent and answered, the session's globals reset): no Python work, no call_tool. */
const CONSTANT = '4';
/** Resident memory of this process's children, by pid, in bytes (Linux `/proc`; empty elsewhere). */
function childRss(): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of childPids()) {
    const rss = residentBytes(pid);
    // A child that ended meanwhile reads as nothing.
    if (rss !== undefined) out.set(pid, rss);
  }
  return out;
}

/** Time the threads of this process's children waited for a core so far, in ms (Linux with scheduler statistics; 0 elsewhere). */
function childWaitMs(): number {
  return childPids().reduce((ms, pid) => ms + (schedTimes(pid)?.waitMs ?? 0), 0);
}

/** CPU time this process's children used so far, in ms (Linux `/proc`; 0 elsewhere). */
function childCpuMs(): number {
  return childPids().reduce((ms, pid) => ms + (cpuTicks(pid) ?? 0) * CLOCK_TICK_MS, 0);
}

interface Burst {
  totalMs: number;
  latencies: number[];
  hostCpuMs: number;
  childCpuMs: number;
  hostWaitMs: number;
  childWaitMs: number;
}

/** One burst: 200 runs of `code` at once, each in a session of its own that ends with it. */
async function burst(sys: ArmatureSystem, tag: string, code = CODE, expected = CALLS * 4): Promise<Burst> {
  const c0 = process.cpuUsage();
  const k0 = childCpuMs();
  const hw0 = schedTimes(process.pid)?.waitMs ?? 0;
  const kw0 = childWaitMs();
  const t0 = performance.now();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const session = `${tag}-${i}`;
      const s0 = performance.now();
      const r = await sys.tools.executeTool<{ value: number }>('execute_python', { code }, { caller: 'test', session, timeoutMs: 600_000 });
      latencies.push(performance.now() - s0);
      sys.bus.emit('session:ended', { session });
      if (!r.ok || r.value.value !== expected) throw new Error(`runtime-pool bench: run ${session} failed: ${JSON.stringify(r).slice(0, 400)}`);
    }),
  );
  const totalMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const hostWaitMs = (schedTimes(process.pid)?.waitMs ?? 0) - hw0;
  return { totalMs, latencies, hostCpuMs: (c.user + c.system) / 1000, childCpuMs: childCpuMs() - k0, hostWaitMs, childWaitMs: childWaitMs() - kw0 };
}

interface Measured {
  totals: number[];
  p50: number[];
  p99: number[];
  hostCpu: number[];
  childCpu: number[];
  hostWait: number[];
  childWait: number[];
  compute: number[];
  constant: number[];
  idleRss: number[];
}

async function measure(size: number): Promise<Measured> {
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
    const m: Measured = { totals: [], p50: [], p99: [], hostCpu: [], childCpu: [], hostWait: [], childWait: [], compute: [], constant: [], idleRss: idle };
    await burst(sys, 'warm-compute', COMPUTE, COMPUTE_VALUE);
    for (let r = 0; r < REPEATS; r++) {
      const b = await burst(sys, `r${r}`);
      m.totals.push(b.totalMs);
      m.p50.push(percentile(b.latencies, 50));
      m.p99.push(percentile(b.latencies, 99));
      m.hostCpu.push(b.hostCpuMs);
      m.childCpu.push(b.childCpuMs);
      m.hostWait.push(b.hostWaitMs);
      m.childWait.push(b.childWaitMs);
      m.compute.push((await burst(sys, `c${r}`, COMPUTE, COMPUTE_VALUE)).totalMs);
      m.constant.push((await burst(sys, `k${r}`, CONSTANT, 4)).totalMs);
    }
    return m;
  } finally {
    await sys.dispose();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const results = new Map<number, Measured>();
  for (const size of SIZES) results.set(size, await measure(size));
  const single = percentile(results.get(1)!.totals, 50);
  const singleCompute = percentile(results.get(1)!.compute, 50);
  const singleConstant = percentile(results.get(1)!.constant, 50);
  for (const size of SIZES) {
    const m = results.get(size)!;
    const name = `pool of ${size}`;
    rows.push(
      medianRow(suite, `${name}: ${RUNS} runs x ${CALLS} call_tool, all done`, m.totals, 'ms', size === 2 ? { text: `<= 0.6x pool of 1 (${(single * 0.6).toFixed(0)} ms)`, pass: (v) => v <= single * 0.6 } : undefined),
      medianRow(suite, `${name}: per-run latency p50`, m.p50, 'ms'),
      medianRow(suite, `${name}: per-run latency p99`, m.p99, 'ms'),
      medianRow(suite, `${name}: host CPU for the ${RUNS * CALLS} call_tool runs`, m.hostCpu, 'ms'),
      medianRow(suite, `${name}: children's CPU for them`, m.childCpu, 'ms'),
      medianRow(suite, `${name}: host threads' time waiting for a core meanwhile`, m.hostWait, 'ms'),
      medianRow(suite, `${name}: children's threads' time waiting for a core`, m.childWait, 'ms'),
      medianRow(suite, `${name}: ${RUNS} runs of Python alone, all done`, m.compute, 'ms'),
      medianRow(suite, `${name}: ${RUNS} runs of a constant (the per-run path), all done`, m.constant, 'ms'),
    );
    if (m.idleRss.length) rows.push(medianRow(suite, `${name}: RSS per idle runtime (child process)`, m.idleRss.map((b) => b / 1024 / 1024), 'MB'));
    if (size !== 1) {
      rows.push(
        medianRow(suite, `${name}: call_tool runs, relative to pool of 1`, m.totals.map((t) => t / single), 'x'),
        medianRow(suite, `${name}: Python alone, relative to pool of 1`, m.compute.map((t) => t / singleCompute), 'x'),
        medianRow(suite, `${name}: the per-run path, relative to pool of 1`, m.constant.map((t) => t / singleConstant), 'x'),
      );
    }
  }
  return rows;
}
