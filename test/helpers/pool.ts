// The runtime pool's tests share these, in Node and in the browser (so nothing here imports node:):
// a tool that blocks until the test opens it, a pool whose `python:pool` events can be awaited, a
// run's value or error in one line, and the Python that checks a session never inherits an interpreter.
import type { ArmatureEvents } from '../../src/kernel/events.ts';
import type { PythonPoolState } from '../../src/contracts/python-events.ts';
import { createPyodideRuntime, type PyodideRuntimeApi, type PyodideRuntimeOptions } from '../../upgrades/pyodide-runtime/runtime.ts';

/** A tool `gate` whose calls wait until the test opens it; `reached` resolves when Python reached it. */
export function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (entered = r));
  const handler = async (name: string) => {
    if (name !== 'gate') return { ok: false as const, error: { code: 'UNKNOWN_TOOL', message: name } };
    entered();
    await opened;
    return { ok: true as const, value: 'opened' };
  };
  return { handler, open, reached };
}

/** A pool whose `python:pool` events can be awaited, and whose run starts are recorded in order. */
export function pool(options: PyodideRuntimeOptions) {
  const states: PythonPoolState[] = [];
  const started: string[] = [];
  const waiters: { pred: (s: PythonPoolState) => boolean; resolve: () => void }[] = [];
  const starts = new Map<string, () => void>();
  const emit = <K extends keyof ArmatureEvents>(type: K, payload: ArmatureEvents[K]) => {
    if (type === 'python:started') {
      const { runId } = payload as { runId: string };
      started.push(runId);
      starts.get(runId)?.();
    }
    if (type !== 'python:pool') return;
    const s = payload as PythonPoolState;
    states.push(s);
    for (const w of waiters.splice(0)) (w.pred(s) ? w.resolve() : waiters.push(w));
  };
  const rt = createPyodideRuntime({ defaultTimeoutMs: 60_000, ...options }, { emit });
  const until = (pred: (s: PythonPoolState) => boolean) =>
    pred(rt.getState().pool!) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pred, resolve }));
  /** Resolves once the run `runId` has started in its runtime (an interrupt before that finds nothing to stop). */
  const running = (runId: string) =>
    started.includes(runId) ? Promise.resolve() : new Promise<void>((resolve) => starts.set(runId, resolve));
  return { rt, states, started, until, running };
}

/** Runs `body` with a pool over `options` whose tool calls go to a fresh gate; disposes it after. */
export async function withPool(options: PyodideRuntimeOptions, body: (p: ReturnType<typeof pool>, g: ReturnType<typeof gate>) => Promise<void>): Promise<void> {
  const g = gate();
  const p = pool(options);
  p.rt.setToolCallHandler(g.handler);
  try {
    await body(p, g);
  } finally {
    await p.rt.dispose();
  }
}

/** A run's value, or `Type: message` of its error. */
export const value = (r: Awaited<ReturnType<PyodideRuntimeApi['execute']>>) => (r.ok ? r.value : `${r.error.type}: ${r.error.message}`);

/**
 * Python that leaves session A's marks in its interpreter beyond its globals: a patched module,
 * a builtin, an environment variable, a module in `sys.modules`, a file. Its value is `"tampered"`.
 */
export const TAMPER = [
  'import json, builtins, os, sys, types',
  'leaked = []',
  '_dumps = json.dumps',
  'json.dumps = lambda o, *a, **k: (leaked.append(o), _dumps(o, *a, **k))[1]',
  'builtins.spy = leaked',
  'os.environ["SPY"] = "A was here"',
  'sys.modules["spy_module"] = types.ModuleType("spy_module")',
  'open("/tmp/x", "w").write("A\'s file")',
  '"tampered"',
].join('\n');

/** Python that looks for each of {@link TAMPER}'s marks, as a later session would; its value is {@link CLEAN} where none is left. */
export const LOOK = [
  'import json, builtins, os, sys',
  'json.dumps({"password": "hunter2"})',
  '[json.dumps.__module__, hasattr(builtins, "spy"), os.environ.get("SPY"), "spy_module" in sys.modules, os.path.exists("/tmp/x")]',
].join('\n');

/** What {@link LOOK} gives in an interpreter no session tampered with. */
export const CLEAN = ['json', false, null, false, false];
