/**
 * Starting Python inside the worker for an `init` request: fetch with progress (browser), read the
 * lock file, load Pyodide — from the start-up snapshot the host passed, else anew with the prelude
 * imported (taking a snapshot when asked) — then connect output, interrupts and the bridge.
 */
import { loadPyodide, type PyodideInterface } from 'pyodide';
import type { InitRequest, InitResult } from '../protocol/protocol.ts';
import { BRIDGE_MODULE, RUNNER_MODULE, SNAPSHOT_PREIMPORTS } from '../python/python-prelude.ts';
import type { WorkerBridge } from './bridge.ts';
import { snapshotProblem } from './snapshot-header.ts';
import { confinePython, shimProcessBinding, type ConfineOptions } from './confine.ts';
import { LIB_DIR, WORKSPACE_DIR, writeModules } from './files.ts';
import { lockIndex, readLock, type LockIndex } from './install.ts';
import type { WorkerOutput } from './output.ts';
import { isNode, type Port } from './port.ts';

/** The runner module's functions the worker calls. */
export type Runner = { [k: string]: (...args: unknown[]) => unknown };

/** A started interpreter and what the worker keeps of its start. */
export interface Started {
  py: PyodideInterface;
  runner: Runner;
  lock: LockIndex;
  interrupt?: Int32Array;
  /** Size limits enforced before anything leaves the worker. */
  limits: InitRequest['limits'];
  /** The `init` response's value (with the snapshot taken, when asked and possible). */
  result: InitResult;
}

async function fetchWithProgress(port: Port, url: string, from: number, to: number): Promise<void> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url} answered ${res.status}`);
  const total = Number(res.headers.get('content-length')) || 0;
  const reader = res.body.getReader();
  let got = 0;
  let lastPercent = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.byteLength;
    const percent = Math.floor(from + (total ? Math.min(1, got / total) : 0.5) * (to - from));
    if (percent !== lastPercent) {
      lastPercent = percent;
      port.post({ type: 'progress', id: 'init', stage: 'fetch', percent, message: url.slice(url.lastIndexOf('/') + 1) });
    }
  }
}

/**
 * Most time a restore may take before Python is started anew instead (it takes well under a
 * second; Pyodide never reports some failures, it only stops).
 */
const RESTORE_TIMEOUT_MS = 30_000;

function withTimeout<T>(work: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(why)), ms)));
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/**
 * Node: loads `pyodide.asm.js` with `require`, which defines the global `loadPyodide` then uses
 * instead of importing it. Imported as ESM, Node first scans the 1 MB CommonJS file for its
 * exports (~0.2 s, more under a loader hook); required, it is only compiled.
 */
async function requireEmscriptenModule(indexURL: string): Promise<void> {
  if (typeof (globalThis as { _createPyodideModule?: unknown })._createPyodideModule === 'function') return;
  if (/^[a-z][a-z0-9+.-]*:/i.test(indexURL) && !indexURL.startsWith('file:')) return;
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  const dir = indexURL.startsWith('file:') ? fileURLToPath(indexURL) : indexURL;
  createRequire(import.meta.url)(`${dir}${dir.endsWith('/') ? '' : '/'}pyodide.asm.js`);
}

/**
 * Node: what a start does first and needs no options for — Pyodide's JavaScript loaded — done
 * ahead of `init` by a worker started early. Never throws: `init` meets, and reports, any failure.
 */
export async function preloadPython(indexURL: string, confine: boolean): Promise<void> {
  if (!isNode) return;
  try {
    if (confine) shimProcessBinding();
    await requireEmscriptenModule(indexURL);
  } catch {
    // init tries again and says why.
  }
}

/** Writes Armature's own modules (the prelude) where `sys.path` finds them. */
function writePrelude(py: PyodideInterface): void {
  py.FS.mkdirTree(LIB_DIR);
  py.FS.writeFile(`${LIB_DIR}/armature_bridge.py`, BRIDGE_MODULE);
  py.FS.writeFile(`${LIB_DIR}/armature_runner.py`, RUNNER_MODULE);
}

/** URLs of the files Pyodide's loader may fetch for itself: its lock file's packages, from either index. */
function ownUrls(req: InitRequest, lockText: string): Set<string> {
  const urls = new Set<string>();
  const lock = JSON.parse(lockText) as { packages: Record<string, { file_name?: string }> };
  for (const base of [req.indexURL, req.packageIndexURL]) {
    if (!/^https?:/.test(base)) continue;
    for (const name of ['pyodide-lock.json', 'pyodide.asm.wasm', 'pyodide.asm.js', 'python_stdlib.zip']) urls.add(`${base}${name}`);
    for (const p of Object.values(lock.packages)) if (p.file_name) urls.add(new URL(p.file_name, base).href);
  }
  return urls;
}

/**
 * Starts Python as `req` asks; reports progress on `port`. With `req.confine`, Python's reach is
 * confined before `ready` (see `confine.ts`); `fetchViaHost` performs the requests its policy allows.
 */
export async function startPython(
  req: InitRequest,
  port: Port,
  output: WorkerOutput,
  bridge: WorkerBridge,
  fetchViaHost?: ConfineOptions['fetchViaHost'],
): Promise<Started> {
  const progress = (stage: 'fetch' | 'compile' | 'stdlib' | 'ready', percent: number, message?: string) =>
    port.post(message ? { type: 'progress', id: req.id, stage, percent, message } : { type: 'progress', id: req.id, stage, percent });
  output.configure(req.stdoutFlushMs, req.output);
  progress('fetch', 0, 'starting');
  if (!isNode) {
    // Fetching first shows real byte progress and warms the HTTP cache loadPyodide then reads from.
    await fetchWithProgress(port, `${req.indexURL}pyodide.asm.wasm`, 0, 30);
    await fetchWithProgress(port, `${req.indexURL}python_stdlib.zip`, 30, 40);
  }
  progress('fetch', 40);
  progress('compile', 40, 'compiling the WebAssembly module');
  // Under Node's permission model Pyodide's NODEFS would fail at start-up without this.
  if (req.confine && isNode) shimProcessBinding();
  if (isNode) await requireEmscriptenModule(req.indexURL);
  const lockText = await readLock(req);
  let stdlibReported = false;
  const load = (snapshot: { _loadSnapshot: Uint8Array } | { _makeSnapshot: true } | object) =>
    loadPyodide({
      indexURL: req.indexURL,
      lockFileContents: lockText,
      packageBaseUrl: req.packageIndexURL,
      ...(req.packageCacheDir ? { packageCacheDir: req.packageCacheDir } : {}),
      // Emscripten's default `_` is this worker's own path on the host: a confined Python does not see it.
      ...(req.confine ? { env: { _: '/usr/bin/python3' } } : {}),
      stdout: (m: string) => void output.write('stdout', new TextEncoder().encode(`${m}\n`)),
      stderr: (m: string) => void output.write('stderr', new TextEncoder().encode(`${m}\n`)),
      fsInit: async () => {
        if (!stdlibReported) progress('stdlib', 70, snapshot && '_loadSnapshot' in snapshot ? 'restoring Python from the start-up snapshot' : 'starting Python');
        stdlibReported = true;
      },
      ...snapshot,
    });
  // The start-up snapshot (read by the host) restores in ~0.3 s instead of a ~2 s start. It is
  // Pyodide's private API for the pinned version, so any failure falls back to a normal start.
  let py: PyodideInterface | undefined;
  let snapshot: Uint8Array | undefined;
  let snapshotError: string | undefined;
  let fromSnapshot = false;
  if (req.snapshot) {
    try {
      const problem = snapshotProblem(req.snapshot);
      if (problem) throw new Error(problem);
      py = await withTimeout(load({ _loadSnapshot: req.snapshot }), RESTORE_TIMEOUT_MS, `restoring took over ${RESTORE_TIMEOUT_MS / 1000} s`);
      // The snapshot holds the prelude already imported; its files are written again so the
      // file system looks the same either way.
      writePrelude(py);
      // A damaged heap can load and still be unusable: make Python do a little work first.
      if (py.runPython('import armature_runner; 6 * 7') !== 42) throw new Error('the restored interpreter computed nonsense');
      fromSnapshot = true;
    } catch (e) {
      py = undefined;
      snapshotError = String((e as Error)?.message ?? e).split('\n')[0];
      stdlibReported = true;
      progress('stdlib', 70, `the start-up snapshot could not be restored (${snapshotError}): starting Python without it`);
    }
  }
  if (!py) {
    py = await load(req.makeSnapshot ? { _makeSnapshot: true } : {});
    writePrelude(py);
    // Everything a snapshot holds is imported whether or not one is taken, so a fresh interpreter
    // and a restored one start in the same state.
    py.runPython(`import sys\nsys.path.insert(0, "${LIB_DIR}")\n${SNAPSHOT_PREIMPORTS.map((m) => `import ${m}`).join('\n')}`);
    if (req.makeSnapshot) {
      try {
        // Taken before anything of ours gives Python a JavaScript reference: the snapshot refuses those.
        snapshot = py.makeMemorySnapshot();
      } catch (e) {
        snapshot = undefined;
        progress('stdlib', 70, `no start-up snapshot could be made (${String((e as Error)?.message ?? e).split('\n')[0]})`);
      }
    }
  }
  if (!stdlibReported) progress('stdlib', 70, 'starting Python');
  py.setStdout({ write: (b: Uint8Array) => output.write('stdout', b) });
  py.setStderr({ write: (b: Uint8Array) => output.write('stderr', b) });
  let interrupt: Int32Array | undefined;
  if (req.interrupt) {
    interrupt = new Int32Array(req.interrupt);
    py.setInterruptBuffer(interrupt);
  }
  bridge.connect(req.transport === 'shared-memory' ? req.bridge : undefined, interrupt, req.limits.toolArgBytes);
  // Captured now: once confined, this worker has no `process` to reach `fs` through.
  if (req.toolPipe && isNode) bridge.connectPipe(req.toolPipe.fd, await import('node:fs'), req.toolPipe.wake);
  py.registerJsModule('_armature_js', {
    transport: req.transport,
    max_arg_bytes: req.limits.toolArgBytes,
    call_sync: bridge.callSync,
    next_part: bridge.nextPart,
    call_async: bridge.callAsync,
    flush_output: () => output.flush(),
  });
  writeModules(py, req.modules);
  // Armature's modules first on sys.path, once (a restore adds Pyodide's '' again).
  py.runPython(
    `import sys, armature_bridge, armature_runner\narmature_bridge._connect()\narmature_runner.FAST = ${req.fastExecute ? 'True' : 'False'}\n` +
      `sys.path[:] = ["${LIB_DIR}"] + [p for p in dict.fromkeys(sys.path) if p != "${LIB_DIR}"]`,
  );
  const runner = py.pyimport('armature_runner') as unknown as Runner;
  runner.configure!(req.limits.resultBytes);
  // Synced files live in /workspace: relative paths and imports of the agent's own modules
  // resolve there. The working directory is file-system state, not heap: set after any restore.
  py.FS.mkdirTree(WORKSPACE_DIR);
  py.FS.chdir(WORKSPACE_DIR);
  if (req.confine) {
    confinePython(py, {
      network: req.confine.network,
      ownUrls: ownUrls(req, lockText),
      fetchViaHost: fetchViaHost ?? (() => Promise.reject(new TypeError('fetch: no host is connected to perform it'))),
    });
  }
  progress('ready', 100);
  const version = py.runPython('import sys; sys.version.split()[0]') as string;
  const result: InitResult = { pythonVersion: version, pyodideVersion: py.version, transport: req.transport, fromSnapshot, snapshot };
  if (snapshotError) result.snapshotError = snapshotError;
  return {
    py,
    runner,
    lock: lockIndex(lockText),
    interrupt,
    limits: req.limits,
    result,
  };
}
