/**
 * PyodideRuntime, host side: Python (Pyodide 0.29.5) in a dedicated worker that always comes back.
 * This file is the façade: it picks where Python runs (a worker of this process or page, or a
 * confined child process) and puts the pool of session runtimes in front of it.
 *
 * Design notes (for the blueprint):
 * - Rooms, each importing only those before it: `protocol/` (zod schemas of every message, both
 *   directions, validated by both sides; errors cross as `{ type, message, traceback }`;
 *   `clone-safety.ts`, the one `ensureStructuredCloneable` step every value crossing a boundary
 *   goes through; ids; hints), `python/` (the Python modules installed in every interpreter: the
 *   runner and the `call_tool` bridge), `worker/` (the worker, `worker/main.ts`: Node
 *   `worker_threads` or a module Web Worker, no DOM), `snapshot/` (the start-up snapshot),
 *   `host/` (the runtime over a worker of this process or page: `worker-runtime.ts` puts a queue
 *   in front of the supervisor, sessions, runs, tool calls and output drain; `runtime-types.ts`
 *   and `runtime-options.ts` are the contract and the options with their defaults), `pool/`
 *   (session runtimes), `process/` (Node's confined child), and at the top this file.
 * - Order: every request goes through one promise queue, so runs execute one at a time in call
 *   order and an output chunk always belongs to exactly one run id. The worker also handles
 *   requests one at a time, except `tool-result` answers (issue 4), which a waiting run needs.
 * - Output: the worker batches stdout/stderr (a flush every `stdoutFlushMs` or 64 KB, at the end
 *   of a run, and before `time.sleep`), so 100,000 printed lines arrive as a few hundred events;
 *   results keep the last `maxResultOutputChars`, the events carry everything.
 * - Values: the last expression converts with Pyodide's `toJs` (dicts to objects, `None` to
 *   `null`, frozensets to lists, dict keys JS cannot hold rewritten by Python), then
 *   `ensureStructuredCloneable` (see its rule table). Proxies are always released.
 * - Timeouts: the clock starts when the run is sent (after start-up and installs). On timeout the
 *   host writes 2 into the shared interrupt buffer and re-writes it every `resignalMs` (single
 *   signals are sometimes lost). If Python has not stopped after `interruptGraceMs` (a loop in C,
 *   a long sleep), the worker is terminated and replaced; the TimeoutError hint says whether
 *   globals survived. Without SharedArrayBuffer (no cross-origin isolation) a timeout replaces
 *   the worker at once.
 * - Starts are fast: a start-up snapshot (an interpreter with the prelude imported) is made by
 *   the first start and kept in memory and, with `snapshot: 'persist'`, in the platform's cache;
 *   later starts, restarts and processes restore it (`snapshot/snapshot-store.ts`).
 * - Faults: worker `error`/`exit` handlers are always attached; a worker that dies fails its
 *   pending requests (`WorkerCrashed`), a dead worker is restarted by the next call, a fatal
 *   Pyodide error restarts it at once. `execute` never throws; when the runtime is not
 *   initialized it initializes and retries once (the code had not run); a crash during a run is
 *   not retried. Memory bombs end as `MemoryError` (the 32-bit heap is capped) or `OverflowError`
 *   for sizes a 32-bit index cannot hold, with hints.
 * - Packages, offline first: a name resolves through `pyodide-lock.json` at `packageIndexURL`
 *   (falling back to the lock file of the installed package if the index is unreachable); wheel
 *   URLs, (Node) wheel paths and wheel bytes install directly; micropip only for names the index
 *   lacks and only if micropip itself loads. `loadPackage` resolving `[]` is reported as the error
 *   it logged.
 * - Workspace sync copies files into `/workspace`, Python's working directory ('in', with their
 *   mtimes) and back ('out': new or changed files by mtime); deletions in Python are reported,
 *   not applied; `maxSyncBytes` bounds each direction (files beyond it are listed as skipped).
 */
import { resolveOptions, type PyodideRuntimeOptions } from './host/runtime-options.ts';
import { createProcessRuntime } from './process/process-runtime.ts';
import { inNode } from './host/worker-handle.ts';
import type { PyodideRuntimeApi, RuntimeCore, RuntimeHost } from './host/runtime-types.ts';
import { createRuntimePool } from './pool/runtime-pool.ts';
import { resolvePoolOptions } from './pool/pool-options.ts';
import { createWorkerRuntime } from './host/worker-runtime.ts';

export { DEFAULT_PACKAGE_INDEX, PYODIDE_VERSION } from './protocol/protocol.ts';
export { hintFor } from './protocol/hints.ts';
export { RuntimeOptionError } from './host/runtime-options.ts';
export type { PyodideRuntimeOptions } from './host/runtime-options.ts';
export type {
  BridgeCall,
  ExecuteOptions,
  ExecuteResult,
  InstallResult,
  PyodideRuntimeApi,
  RuntimeCore,
  RuntimeHost,
  RuntimeState,
  SyncReport,
  ToolCallHandler,
  WorkspaceLike,
} from './host/runtime-types.ts';

export type { PoolOptions } from './host/runtime-options.ts';

/**
 * Creates the runtime: the shared runtime, and the pool of runtimes for sessions
 * (`pool/runtime-pool.ts`). Nothing starts until `init()` (or the first call that needs Python).
 * In Node Python runs in confined child processes unless `isolation: 'thread'` (see the option).
 */
export function createPyodideRuntime(options: PyodideRuntimeOptions, host: RuntimeHost): PyodideRuntimeApi {
  const o = resolveOptions(options);
  const pool = resolvePoolOptions(options);
  const create = (h: RuntimeHost): RuntimeCore =>
    inNode() && o.isolation === 'process' ? createProcessRuntime(o, options.onToolCall, h) : createWorkerRuntime(o, options.onToolCall, h);
  return createRuntimePool(pool, create, host, o.defaultTimeoutMs);
}
