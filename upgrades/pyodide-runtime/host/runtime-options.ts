/**
 * The options of {@link createPyodideRuntime}, documented with their defaults, and the one place
 * that fills in those defaults.
 */
import { normalizeNetworkPolicy } from '../../../src/sandbox/network-policy.ts';
import type { Fetched, FetchRequest, NetworkPolicy } from '../../../src/sandbox/protocol.ts';
import { DEFAULT_PACKAGE_INDEX, type PythonErrorInfo, type Transport } from '../protocol/protocol.ts';
import { ArmatureError } from '../../../src/kernel/errors.ts';
import { MAX_TIMER_MS, timeoutProblem } from '../../../src/kernel/bounded.ts';
import type { BlobCache } from '../../../src/platform/platform.ts';
import type { ToolCallHandler } from './runtime-types.ts';
import type { SnapshotMode } from '../snapshot/snapshot-store.ts';
import { inNode } from './worker-handle.ts';

/** Options of the runtime pool, part of `PyodideRuntimeOptions`. */
export interface PoolOptions {
  /**
   * Most runtimes serving sessions at once (`execute(code, { session })`). Every session runs on
   * an interpreter no other session has run code in, and holds it while it runs code and for
   * `poolGraceMs` after; a session past this many waits (in order) until one is given up. A
   * runtime whose Python waits in `call_tool` for another tool does not count meanwhile, so a
   * session calling an agent-made Python tool never waits for itself. Runs without a session use
   * the shared runtime, which is not counted here. Whole number from 1 to 64. Default: the
   * machine's cores (`os.availableParallelism()` in Node, `navigator.hardwareConcurrency` in
   * browsers), at least 1.
   */
  poolSize?: number;
  /**
   * How long a session keeps its runtime after its last operation when no other session waits
   * for one, in ms: then the runtime stops (its globals, imports and packages with it) and the
   * session's next run starts on a fresh one, with a notice saying so. A warm spare unused for as
   * long stops too. 1 to 2147483647. Default: 300000 (5 minutes).
   */
  poolIdleMs?: number;
  /**
   * How long a session keeps its runtime after an operation even when another session waits, in
   * ms, so that runs in quick succession (an agent's steps) keep their globals. Past it, an idle
   * session's runtime is stopped at once for a waiting session. 0 to 2147483647. Default: 1000.
   */
  poolGraceMs?: number;
  /**
   * Runtimes kept started and unused, so a new session's first run does not wait for a start-up:
   * started in the background once sessions are used, and again each time one is taken. Whole
   * number from 0 to 64. Default: 1.
   */
  poolSpares?: number;
  /**
   * Most runs waiting for a runtime of the pool; one more is refused at once with `RUNTIME_BUSY`.
   * A waiting run gives up after its own timeout. Whole number from 0 to 100000. Default: 256.
   */
  poolQueueLimit?: number;
}

/** Options of {@link createPyodideRuntime}; the pool's (`poolSize`, `poolIdleMs`, `poolGraceMs`, `poolSpares`, `poolQueueLimit`) are in {@link PoolOptions}. */
export interface PyodideRuntimeOptions extends PoolOptions {
  /**
   * Node: where Python runs. `process` (the default): a child process under Node's permission
   * model (read access to Pyodide's files only, no writes, no child processes), with code
   * generation from strings off, an empty environment and a memory cap; Python's `js` and
   * `pyodide_js` are confined as in browsers. `thread`: a worker thread of this process, with
   * Pyodide's full reach (`import js` is this process: its files, environment and network) —
   * **unconfined**, for trusted code only. Browsers always use a confined Web Worker.
   * Default: `process`.
   */
  isolation?: 'process' | 'thread';
  /**
   * What Python's `fetch` (`js.fetch`, `pyodide.http.pyfetch`) may reach: `none`, or a list of
   * origins such as `https://api.example.com` (a persona's `network`). The host performs every
   * such request. Ignored by the unconfined `thread` isolation. Default: `none`.
   */
  network?: 'none' | string[];
  /**
   * Node, `process` isolation: the child's resident-memory cap in MiB, Pyodide's heap included.
   * Python's 32-bit heap stops at 4 GiB with a MemoryError; the cap sits above it, for what else
   * the child could hold. Below ~4.5 GiB, memory bombs end by replacing the child instead. Default: 4608.
   */
  processMemoryMb?: number;
  /**
   * Most memory Python's heap may take, in MiB. WebAssembly's 32-bit memory stops at 4096; a
   * smaller cap bounds each worker (in a pool of runtimes, for instance). Past it allocations
   * fail with MemoryError; a run that leaves less than an eighth of it (at most 64 MiB) free —
   * a memory bomb kept in globals — restarts the worker after the run, and the result says that
   * globals were lost. At least 64. Default: 4096.
   */
  maxHeapMb?: number;
  /**
   * Worker script URL. Default: the sources' `worker/main.ts`; built, in Node the `pyodide-worker.js`
   * beside the code, in a browser `/__armature/pyodide-worker.js` on the page's origin (served by
   * `armature/server`'s middleware, `startServer` and the Vite plugin). See `pyodideWorkerScript`
   * in `src/platform/package-layout.ts`.
   */
  workerUrl?: string | URL;
  /**
   * Where Pyodide's own files are (`pyodide.asm.wasm`, `python_stdlib.zip`, `pyodide-lock.json`),
   * with a trailing slash. Default: in Node the folder of the installed `pyodide` package; in a
   * browser `/pyodide/` on the page's origin (where `armature/server`'s middleware, `startServer`
   * and the Vite plugin serve the installed package).
   */
  indexURL?: string;
  /** Base URL holding the pinned version's `pyodide-lock.json` and wheels. Default: {@link DEFAULT_PACKAGE_INDEX}. */
  packageIndexURL?: string;
  /**
   * Node only: the folder where packages installed by name from an http(s) `packageIndexURL` are
   * kept after their download, and looked up first next time. Default: the PyodideRuntime upgrade
   * passes its platform's `pyodide-packages` cache folder (`<dataDir>/cache/pyodide-packages/`);
   * a runtime created directly uses `armature/pyodide-packages/` in the user's cache folder
   * (`$XDG_CACHE_HOME`, else `~/.cache`). A local `packageIndexURL` is read in place. The
   * confined child of `process` isolation uses this folder's sibling `<folder>-confined`, the
   * only folder it may write, so what it downloads is never installed by an unconfined runtime.
   */
  packageCacheDir?: string;
  /** Timeout of a run in ms when the call sets none: 1 to 2147483647. Default: 30000. */
  defaultTimeoutMs?: number;
  /**
   * How long an interrupt may stay unread by Python (a loop inside C, a long sleep) before the
   * worker is replaced, in ms; Python that reads the interrupts and goes on is replaced after
   * `max(5, interruptGraceMs / resignalMs)` of them (see `interrupt-watch.ts`). Pure-Python code
   * stops within milliseconds (p99 ~7 ms measured), so this only delays recovery from loops inside
   * C and long sleeps; recovery takes this plus one start-up (~2.5 s). Default: 1000.
   */
  interruptGraceMs?: number;
  /** Interval between repeated interrupt signals, in ms. Default: 100. */
  resignalMs?: number;
  /** Most bytes one `syncWorkspace` moves in either direction. Default: 50 MiB. */
  maxSyncBytes?: number;
  /** How often the worker flushes stdout/stderr while a run prints, in ms. Default: 16. */
  stdoutFlushMs?: number;
  /** Most characters of stdout and of stderr kept in a result (the stream events carry everything). Default: 1 MiB. */
  maxResultOutputChars?: number;
  /**
   * How `call_tool` reaches the host. A forced transport this engine or page cannot provide is
   * refused at creation ({@link RuntimeOptionError}). Default: `auto` (shared memory, else JSPI,
   * else async only).
   */
  transport?: Transport | 'auto';
  /** Runs tools for `call_tool`. Default: none (calls fail with NO_TOOLS). */
  onToolCall?: ToolCallHandler;
  /** Python modules to install before user code (generated tool modules). Default: none. */
  modules?: () => { path: string; source: string }[];
  /**
   * Start workers from a start-up snapshot: a memory image (~20 MB) of an interpreter with
   * Armature's prelude and the modules first runs need already imported, restored in ~0.3 s
   * instead of starting Python in ~2 s. `persist` keeps it in memory and in `snapshotCache`, so
   * the next process (or page load) restores it too; `memory` keeps it for this process or page
   * (the first worker makes it, restarts restore it); `off` starts Python anew every time.
   * A snapshot that fails to restore is reported once, Python starts anew, and a new one is made.
   * The snapshot is code: keep its cache as trusted as `node_modules`. A confined child's (in
   * `process` isolation) are kept by the host under their own keys (`<key>.confined`) and only
   * ever restored in children. Uses Pyodide's private snapshot API of the pinned version.
   * Default: `persist` (`memory` when there is no cache).
   */
  snapshot?: SnapshotMode;
  /**
   * Where `snapshot: 'persist'` keeps the snapshot. The PyodideRuntime upgrade passes its
   * platform's `openCache('pyodide-snapshot')` (Node: `<dataDir>/cache/pyodide-snapshot/`;
   * browser: Cache Storage). Default: none.
   */
  snapshotCache?: BlobCache;
  /** @deprecated Use `snapshot`; `false` is `snapshot: 'off'`. Default: true. */
  memorySnapshot?: boolean;
  /** Most time `init()` may take, in ms. Default: 120000. */
  initTimeoutMs?: number;
  /**
   * Start a replacement worker as soon as a run times out, so that if Python ignores the interrupt
   * the restart is already under way when the grace period ends (it is discarded otherwise).
   * It pays off with spare cores; on two cores the stuck worker and the new one compete, and
   * `npm run bench` measured no gain, so it is off by default. Default: false.
   */
  prestartOnTimeout?: boolean;
  /**
   * How long the host keeps looking at the shared request slot after answering a `call_tool`,
   * in ms (shared-memory transport). Calls in a loop then reach the host without waking its
   * thread, several times faster on virtual machines; the price is a busy event loop for at most
   * this long after each call. 0 turns it off. Default: 2.
   */
  bridgePollMs?: number;
  /**
   * How long the worker keeps its event loop awake after answering a request, and the host after
   * sending one, in ms: the next request (runs come in bursts) and the answer (small runs take
   * microseconds) then arrive without waking a sleeping thread, which costs more than a small run
   * on virtual machines. The price is a busy loop for at most this long. 0 turns it off. Default: 2.
   */
  requestPollMs?: number;
  /**
   * Compile user code directly: parse once, compile the body and the last expression (~30 µs).
   * Code with a `;` after its last expression, top-level `await` or a `__future__` import goes
   * through Pyodide's `CodeRunner` either way; false sends every run there (~200 µs more per
   * run; for comparison). Default: true.
   */
  fastExecute?: boolean;
  /**
   * Largest value one run may return, in bytes, measured in the worker before it is sent (a str or
   * bytes value is refused in Python, before it is even converted): the host never holds more of
   * what Python returns. Over it the run fails with `ResultTooLarge`. Default: 16 MiB.
   */
  maxResultBytes?: number;
  /** Largest arguments of one `call_tool` from Python (their JSON), in bytes; over it the call fails with `ARGUMENTS_TOO_LARGE` before it leaves Python. Default: 16 MiB. */
  maxToolArgBytes?: number;
  /** Largest answer of one `call_tool` to Python (its marshal document), in bytes; encoding stops past it and the call fails with `ANSWER_TOO_LARGE`. Default: 64 MiB. */
  maxToolAnswerBytes?: number;
}

/** The options with every default filled in. */
export interface ResolvedOptions {
  defaultTimeoutMs: number;
  interruptGraceMs: number;
  resignalMs: number;
  maxSyncBytes: number;
  stdoutFlushMs: number;
  maxChars: number;
  packageIndexURL: string;
  initTimeoutMs: number;
  prestart: boolean;
  bridgePollMs: number;
  fastExecute: boolean;
  requestPollMs: number;
  snapshot: SnapshotMode;
  snapshotCache?: BlobCache;
  transport: Transport | 'auto';
  workerUrl?: string | URL;
  indexURL?: string;
  packageCacheDir?: string;
  maxResultBytes: number;
  maxToolArgBytes: number;
  maxToolAnswerBytes: number;
  isolation: 'process' | 'thread';
  /** `maxHeapMb` in bytes. */
  heapLimitBytes: number;
  network: NetworkPolicy;
  processMemoryMb: number;
  /** Whether the worker confines Python (browsers; the worker inside Node's confined child). */
  confine: boolean;
  /** Who performs Python's allowed fetches. Default: this host, with `policyFetch`. */
  fetcher?: (req: Omit<FetchRequest, 'type' | 'id'>) => Promise<Fetched>;
  modules?: () => { path: string; source: string }[];
  /** In a confined child: the pipe `call_tool` uses to reach the host, and the word that wakes a worker waiting on it. */
  toolPipe?: { fd: number; wake: SharedArrayBuffer };
}

/** An option the runtime cannot take here; `code` is `INVALID_RUNTIME_OPTION`, `details` names it. */
export class RuntimeOptionError extends ArmatureError {
  constructor(option: string, value: unknown, why: string, hint: string) {
    super('INVALID_RUNTIME_OPTION', `[PyodideRuntime] option ${option} ${JSON.stringify(value)}: ${why}`, { details: { option, value }, hint });
  }
}

/**
 * Fills in the defaults documented on {@link PyodideRuntimeOptions}. Throws a
 * {@link RuntimeOptionError} for a value the option does not take, or a transport this JavaScript
 * engine or page cannot provide (refused here, not at the first `call_tool`).
 */
export function resolveOptions(options: PyodideRuntimeOptions): ResolvedOptions {
  if (options.snapshot !== undefined && !['persist', 'memory', 'off'].includes(options.snapshot)) {
    throw new RuntimeOptionError('snapshot', options.snapshot, "it must be 'persist', 'memory' or 'off'", "Use 'persist' (the default), 'memory' or 'off'.");
  }
  if (options.transport !== undefined) checkTransport(options.transport);
  if (options.defaultTimeoutMs !== undefined && timeoutProblem(options.defaultTimeoutMs, 'defaultTimeoutMs')) {
    throw new RuntimeOptionError('defaultTimeoutMs', options.defaultTimeoutMs, `it must be 1 to ${MAX_TIMER_MS} ms`, 'Leave it out for 30000 ms.');
  }
  const maxHeapMb = options.maxHeapMb ?? 4096;
  if (typeof maxHeapMb !== 'number' || !Number.isFinite(maxHeapMb) || maxHeapMb < 64 || maxHeapMb > 4096) {
    throw new RuntimeOptionError('maxHeapMb', options.maxHeapMb, 'it must be a number of MiB from 64 to 4096', 'Leave it out for the whole 4096 MiB WebAssembly allows, or pick a smaller cap such as 512.');
  }
  return {
    defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000,
    interruptGraceMs: options.interruptGraceMs ?? 1000,
    resignalMs: options.resignalMs ?? 100,
    maxSyncBytes: options.maxSyncBytes ?? 50 * 1024 * 1024,
    stdoutFlushMs: options.stdoutFlushMs ?? 16,
    maxChars: options.maxResultOutputChars ?? 1024 * 1024,
    packageIndexURL: options.packageIndexURL ?? DEFAULT_PACKAGE_INDEX,
    initTimeoutMs: options.initTimeoutMs ?? 120_000,
    prestart: options.prestartOnTimeout ?? false,
    bridgePollMs: options.bridgePollMs ?? 2,
    fastExecute: options.fastExecute ?? true,
    requestPollMs: options.requestPollMs ?? 2,
    snapshot: options.memorySnapshot === false ? 'off' : (options.snapshot ?? 'persist'),
    snapshotCache: options.snapshotCache,
    transport: options.transport ?? 'auto',
    workerUrl: options.workerUrl,
    indexURL: options.indexURL,
    packageCacheDir: options.packageCacheDir,
    maxResultBytes: options.maxResultBytes ?? 16 * 1024 * 1024,
    maxToolArgBytes: options.maxToolArgBytes ?? 16 * 1024 * 1024,
    maxToolAnswerBytes: options.maxToolAnswerBytes ?? 64 * 1024 * 1024,
    isolation: options.isolation ?? 'process',
    heapLimitBytes: Math.floor(maxHeapMb * 1024 * 1024),
    network: normalizeNetworkPolicy(options.network, 'PyodideRuntime'),
    processMemoryMb: options.processMemoryMb ?? 4608,
    confine: !inNode(),
    modules: options.modules,
  };
}

/** The hint of a refused run timeout (see {@link runTimeoutProblem}). */
export const RUN_TIMEOUT_HINT = `Pass a timeout from 1 to ${MAX_TIMER_MS} ms, or leave it out for the runtime's default (30000 ms unless defaultTimeoutMs says otherwise).`;

/** A run's timeout the runtime refuses (see `timeoutProblem`), as the run's error; undefined when it is usable. */
export function runTimeoutProblem(ms: unknown): PythonErrorInfo | undefined {
  const why = timeoutProblem(ms, 'timeoutMs');
  return why ? { type: 'ValueError', message: `${why}; nothing ran`, traceback: '' } : undefined;
}

/** Whether shared memory can cross to the worker here (always in Node; in a page only when cross-origin isolated). */
export function canShareMemory(): boolean {
  return typeof SharedArrayBuffer === 'function' && (inNode() || (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true);
}

/** Whether this engine has JavaScript Promise Integration as Pyodide uses it (`WebAssembly.Suspending`). */
export function hasJspi(): boolean {
  return typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === 'function';
}

/** Throws a {@link RuntimeOptionError} unless `transport` is one this engine or page can provide. */
function checkTransport(transport: Transport | 'auto'): void {
  if (!['auto', 'shared-memory', 'jspi', 'async'].includes(transport)) {
    throw new RuntimeOptionError('transport', transport, "it must be 'auto', 'shared-memory', 'jspi' or 'async'", "Use 'auto' (the default) to pick the best one available.");
  }
  if (transport === 'jspi' && !hasJspi()) {
    const where = inNode() ? `this Node ${process.versions.node} (Node 20 has only an older form, behind a flag)` : 'this browser';
    throw new RuntimeOptionError('transport', transport, `JSPI (WebAssembly.Suspending) is not available in ${where}`, `Use 'auto' or ${canShareMemory() ? "'shared-memory'" : "'async'"}.`);
  }
  if (transport === 'shared-memory' && !canShareMemory()) {
    const why = typeof SharedArrayBuffer !== 'function' ? 'SharedArrayBuffer is not available' : 'the page is not cross-origin isolated';
    throw new RuntimeOptionError(
      'transport',
      transport,
      `${why}: serve the page with 'Cross-Origin-Opener-Policy: same-origin' and 'Cross-Origin-Embedder-Policy: require-corp'`,
      `Add the two headers, or use 'auto'${hasJspi() ? " or 'jspi'" : " or 'async'"}.`,
    );
  }
}

/** The transport for `requested`: `auto` picks shared memory, else JSPI, else async only. */
export function chooseTransport(requested: Transport | 'auto'): Transport {
  if (requested !== 'auto') return requested;
  if (canShareMemory()) return 'shared-memory';
  if (hasJspi()) return 'jspi';
  return 'async';
}

/**
 * Where Pyodide keeps packages it downloads (Node, http(s) index only; undefined otherwise:
 * Pyodide then reads a local index in place). Without it Pyodide uses the index URL itself as a
 * folder name and creates `https:/cdn.jsdelivr.net/...` in the working directory.
 */
export async function packageCacheDirFor(o: Pick<ResolvedOptions, 'packageCacheDir' | 'packageIndexURL'>): Promise<string | undefined> {
  if (!inNode() || !/^https?:/i.test(o.packageIndexURL)) return undefined;
  if (o.packageCacheDir) return o.packageCacheDir;
  const { homedir } = await import('node:os');
  const { join } = await import('node:path');
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'armature', 'pyodide-packages');
}
