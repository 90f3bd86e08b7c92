// The runtime pool's targets as issue 28 restates them: the pool exists for isolation and for not
// waiting behind someone else. On a booted system (confined child processes, Node's default),
// `execute_python` with a session through the ToolRunner, alternatives side by side in one run:
// 1. a session's first run, on an interpreter no session has used: taken from a warm spare, or
//    started from the persisted start-up snapshot (`poolSpares: 0`); target p50 <= 150 ms with a spare;
// 2. a `1 + 1` of one session while another session runs `while True`, against the same with
//    nothing else running; target <= 2x;
// 3. memory per idle session: with its interpreter kept (its child process's RSS), and once the
//    pool reclaimed it (what the session then still costs);
// 4. 20 sessions over 2 runtimes, each setting and reading its own state: time to all done.
// The earlier target (2 runtimes <= 0.6x one on a burst of 200 runs x 100 call_tool) is withdrawn
// (issue 28): on 2 cores every call_tool is answered by the host's one thread, so such a burst
// cannot get faster with more runtimes, as measured (blueprint 0x000030).
import { boot, type ArmatureSystem } from '../src/index.ts';
import { residentBytes } from '../src/platform/proc/linux-proc.ts';
import { pythonChildPids } from '../test/helpers/python-children.ts';
import type { PythonPoolState } from '../src/contracts/python-events.ts';
import type { PyodideRuntimeApi } from '../upgrades/pyodide-runtime/contract.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

const suite = 'runtime-pool';
const FIRST_RUNS = Number(process.env.ARMATURE_BENCH_POOL_FIRST ?? 15);
const LATENCY_RUNS = 100;
const REPEATS = Number(process.env.ARMATURE_BENCH_POOL_REPEATS ?? 3);
const IDLE_SESSIONS = 3;
const CHURN = 20;

async function bootPool(name: string, pool: Record<string, unknown>): Promise<{ sys: ArmatureSystem; rt: PyodideRuntimeApi }> {
  const sys = await boot({ dataDir: tempDir(`bench-pool-${name}`), config: { PyodideRuntime: { autoStart: false, poolSize: 2, defaultTimeoutMs: 600_000, ...pool } } });
  return { sys, rt: await sys.resolve<PyodideRuntimeApi>('PyodideRuntime') };
}

/** Resolves once the pool's state satisfies `pred` (looked at every 10 ms; a bench may wait). */
async function until(rt: PyodideRuntimeApi, pred: (s: PythonPoolState) => boolean, what: string, ms = 300_000): Promise<void> {
  const end = performance.now() + ms;
  while (!pred(rt.getState().pool!)) {
    if (performance.now() > end) throw new Error(`runtime-pool bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One `execute_python` of a session, timed from the call to its result; throws unless it answered `expected`. */
async function timed(sys: ArmatureSystem, session: string, code: string, expected: unknown): Promise<number> {
  const t0 = performance.now();
  const r = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code }, { caller: 'test', session, timeoutMs: 600_000 });
  const ms = performance.now() - t0;
  if (!r.ok || JSON.stringify(r.value.value) !== JSON.stringify(expected)) throw new Error(`runtime-pool bench: ${session} answered ${JSON.stringify(r).slice(0, 300)}`);
  return ms;
}

/** 1. First runs of new sessions, alternating between a pool with a warm spare and one without. */
async function firstRuns(): Promise<BenchRow[]> {
  const spare = await bootPool('spare', { poolSpares: 1 });
  const cold = await bootPool('snapshot', { poolSpares: 0 });
  const samples = { spare: [] as number[], cold: [] as number[] };
  try {
    // The first start of each system makes its snapshot; every later start restores it.
    for (const { sys } of [spare, cold]) {
      await timed(sys, 'warm-up', '1 + 1', 2);
      sys.bus.emit('session:ended', { session: 'warm-up' });
    }
    for (let i = 0; i < FIRST_RUNS; i++) {
      for (const [kind, p] of [['spare', spare], ['cold', cold]] as const) {
        // Quiet before each sample: the last session's runtime gone, and (with spares) a spare warm.
        await until(p.rt, (s) => s.sessions === 0 && (kind === 'cold' ? s.workers === 0 : s.spares === 1 && s.workers === 1), `a quiet ${kind} pool`);
        samples[kind].push(await timed(p.sys, `first-${i}`, '1 + 1', 2));
        p.sys.bus.emit('session:ended', { session: `first-${i}` });
      }
    }
  } finally {
    await Promise.all([spare.sys.dispose(), cold.sys.dispose()]);
  }
  return [
    medianRow(suite, "a new session's first run (1 + 1), taken from a warm spare", samples.spare, 'ms', { text: '<= 150 ms (p50)', pass: (v) => v <= 150 }),
    medianRow(suite, "a new session's first run (1 + 1), started from the snapshot (no spare)", samples.cold, 'ms'),
  ];
}

/** 2. `1 + 1` of session Q, with nothing else running and while session L runs `while True`. */
async function latencyUnderLoop(): Promise<BenchRow[]> {
  const { sys, rt } = await bootPool('loop', {});
  const idle: number[] = [];
  const busy: number[] = [];
  const ratios: number[] = [];
  const p50 = async () => {
    const ms: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) ms.push(await timed(sys, 'Q', '1 + 1', 2));
    return percentile(ms, 50);
  };
  try {
    await timed(sys, 'Q', '1 + 1', 2);
    await timed(sys, 'L', '1 + 1', 2);
    for (let r = 0; r < REPEATS; r++) {
      const quiet = await p50();
      const started = new Promise<void>((resolve) => {
        const sub = sys.bus.on('python:started', ({ runId }) => runId === `loop-${r}` && (sub.dispose(), resolve()));
      });
      const loop = sys.tools.executeTool('execute_python', { code: 'while True:\n    pass' }, { caller: 'test', session: 'L', callId: `loop-${r}`, timeoutMs: 600_000 });
      await started;
      const loaded = await p50();
      rt.interrupt('L');
      const ended = await loop;
      if (ended.ok || ended.error.code !== 'KeyboardInterrupt') throw new Error(`runtime-pool bench: the loop ended with ${JSON.stringify(ended).slice(0, 300)}`);
      idle.push(quiet);
      busy.push(loaded);
      ratios.push(loaded / quiet);
    }
  } finally {
    await sys.dispose();
  }
  return [
    medianRow(suite, `1 + 1 of a session, nothing else running (p50 of ${LATENCY_RUNS})`, idle, 'ms'),
    medianRow(suite, `1 + 1 of a session while another runs while True (p50 of ${LATENCY_RUNS})`, busy, 'ms'),
    medianRow(suite, '1 + 1 while another session loops, relative to idle', ratios, 'x', { text: '<= 2x', pass: (v) => v <= 2 }),
  ];
}

/** Resident memory of this process's confined Python children, in bytes (Linux `/proc`; 0 elsewhere). */
const childrenRss = () => pythonChildPids().reduce((sum, pid) => sum + (residentBytes(pid) ?? 0), 0);

/** 3. What an idle session costs, with its interpreter kept and once the pool reclaimed it. */
async function idleMemory(): Promise<BenchRow[]> {
  const { sys, rt } = await bootPool('memory', { poolSize: IDLE_SESSIONS, poolSpares: 0, poolIdleMs: 4000 });
  try {
    const before = childrenRss();
    for (let i = 0; i < IDLE_SESSIONS; i++) await timed(sys, `idle-${i}`, `x = ${i}\nx`, i);
    const kept = pythonChildPids().map((pid) => residentBytes(pid) ?? 0);
    await until(rt, (s) => s.sessions === 0 && s.workers === 0, 'the idle sessions to be reclaimed');
    // Give the killed children a moment to leave /proc.
    await new Promise((r) => setTimeout(r, 500));
    const after = childrenRss();
    return [
      medianRow(suite, 'memory of an idle session, its interpreter kept (child RSS)', kept.map((b) => b / 1024 / 1024), 'MB'),
      medianRow(suite, `memory of an idle session once reclaimed (children's RSS left, per session; the pool keeps a notice of ~300 bytes)`, [Math.max(0, after - before) / IDLE_SESSIONS / 1024 / 1024], 'MB'),
    ];
  } finally {
    await sys.dispose();
  }
}

/** 4. 20 sessions over 2 runtimes, each setting its state and reading it back. */
async function churn(): Promise<BenchRow[]> {
  const { sys } = await bootPool('churn', {});
  const totals: number[] = [];
  try {
    await timed(sys, 'warm-up', '1 + 1', 2);
    sys.bus.emit('session:ended', { session: 'warm-up' });
    for (let r = 0; r < REPEATS; r++) {
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CHURN }, async (_, i) => {
          const session = `churn-${r}-${i}`;
          await timed(sys, session, `import builtins\nseen = hasattr(builtins, "owner")\nbuiltins.owner = ${i}\nseen`, false);
          await timed(sys, session, 'import builtins\nbuiltins.owner', i);
          sys.bus.emit('session:ended', { session });
        }),
      );
      totals.push(performance.now() - t0);
    }
  } finally {
    await sys.dispose();
  }
  return [medianRow(suite, `${CHURN} sessions over 2 runtimes, each its own state (2 runs each), all done`, totals, 'ms')];
}

export async function run(): Promise<BenchRow[]> {
  return [...(await firstRuns()), ...(await latencyUnderLoop()), ...(await idleMemory()), ...(await churn())];
}
