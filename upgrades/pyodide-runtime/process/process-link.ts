/**
 * Node only: starting the confined child of `process` isolation. The child runs two plain-JS
 * bundles — its entry (`process-child.ts`: the Pyodide runtime's host side) and the Pyodide worker
 * it starts (`worker/main.ts`) — each self-contained, since the permission model lets the child read
 * only them and Pyodide's own files. The built package ships both (`package-layout.ts`); from the
 * sources they are bundled on first use into a private temporary folder.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pythonChildEntry, pythonChildWorker } from '../../../src/platform/package-layout.ts';
import { spawnConfinedChild, type ConfinedChild } from '../../../src/sandbox/confined-child.ts';

const ESBUILD = 'esbuild';
/** Lets bundled CommonJS (inside Pyodide's loader) call `require`. */
const REQUIRE_BANNER = "import { createRequire as __armatureRequire } from 'node:module'; const require = __armatureRequire(import.meta.url);";

/** The two bundles, as source text (for the build, and for the sources' first use). */
export async function bundlePythonChild(): Promise<{ child: string; worker: string }> {
  // Named through a variable so that bundling the package for browsers does not pull esbuild in.
  const esbuild = (await import(ESBUILD)) as typeof import('esbuild');
  const here = fileURLToPath(new URL('.', import.meta.url));
  const common = { bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning', banner: { js: REQUIRE_BANNER }, loader: { '.py': 'text' } } as const;
  const [child, worker] = await Promise.all([
    esbuild.build({ ...common, entryPoints: [join(here, 'process-child.ts')] }),
    esbuild.build({ ...common, entryPoints: [join(here, '..', 'worker', 'main.ts')] }),
  ]);
  return { child: child.outputFiles[0]!.text, worker: worker.outputFiles[0]!.text };
}

let entries: Promise<{ child: string; worker: string }> | undefined;

/** Paths of the child's entry and worker: the package's, or bundled once per process (see above). */
export function pythonChildEntries(): Promise<{ child: string; worker: string }> {
  entries ??= (async () => {
    if (pythonChildEntry && pythonChildWorker) {
      const paths = { child: fileURLToPath(pythonChildEntry), worker: fileURLToPath(pythonChildWorker) };
      for (const p of Object.values(paths)) if (!existsSync(p)) throw new Error(`[pyodide] ${p} is missing from the package: reinstall it`);
      return { child: realpathSync(paths.child), worker: realpathSync(paths.worker) };
    }
    const code = await bundlePythonChild();
    // A folder of our own (mkdtemp: 0700, unpredictable name), so no one else can swap the files.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'armature-python-')));
    const child = join(dir, 'python-child.mjs');
    const worker = join(dir, 'python-worker.mjs');
    writeFileSync(child, code.child, { mode: 0o400 });
    writeFileSync(worker, code.worker, { mode: 0o400 });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return { child, worker };
  })();
  entries.catch(() => {
    entries = undefined;
  });
  return entries;
}

/** The installed Pyodide package's folder (what the child may read besides its bundles). */
export function pyodideDir(): string {
  return realpathSync(dirname(createRequire(import.meta.url).resolve('pyodide/package.json')));
}

/** Options of {@link startPythonChild}. */
export interface PythonChildOptions {
  /** Resident-memory cap of the child (Pyodide's heap included), in MiB. */
  memoryMb: number;
  /** Largest message accepted from the child, in bytes. */
  maxFrameBytes: number;
  /** Where Pyodide's files are, when not the installed package's folder. Default: `pyodideDir()`. */
  indexDir?: string;
  /** Further folders the child may read (a local package index). Default: none. */
  read?: string[];
  /** Folders the child may write (its own package download cache). Default: none. */
  write?: string[];
}

/** V8 heap cap of the child (its main thread and the Pyodide worker each; Python's own memory is WebAssembly memory, outside it), in MiB. */
const CHILD_HEAP_MB = 1024;

/** A started child, the URL of the worker script it should start and Pyodide's files. */
export interface StartedChild {
  child: ConfinedChild;
  workerUrl: string;
  indexURL: string;
}

/** How long a child started ahead of need waits to be taken before it is stopped, in ms. */
const EARLY_CHILD_MS = 60_000;
/** Children started ahead of need, by their options (see {@link startPythonChildEarly}). */
const earlyChildren = new Map<string, Promise<StartedChild>>();
const launchKey = (o: PythonChildOptions) => JSON.stringify([o.memoryMb, o.maxFrameBytes, o.indexDir ?? '', o.read ?? [], o.write ?? []]);

/**
 * Starts a child now for a runtime that will ask for one with the same options soon (the
 * upgrade's early start, while the rest boots): the child's start (~70 ms) and that of boot
 * overlap. The next {@link startPythonChild} with equal options takes it; one nobody took within
 * `unclaimedMs` (a minute), or by the time `signal` aborts, is stopped. A child with equal options
 * already waiting is left as it is. Never throws: a child that could not start is simply not kept.
 */
export function startPythonChildEarly(o: PythonChildOptions, unclaimedMs = EARLY_CHILD_MS, signal?: AbortSignal): void {
  const key = launchKey(o);
  if (earlyChildren.has(key) || signal?.aborted) return;
  const started = spawnPythonChild(o);
  earlyChildren.set(key, started);
  const stopUnclaimed = () => {
    if (earlyChildren.get(key) !== started) return;
    earlyChildren.delete(key);
    void started.then((s) => s.child.terminate(), () => undefined);
  };
  signal?.addEventListener('abort', stopUnclaimed, { once: true });
  started.then(
    () => void setTimeout(stopUnclaimed, unclaimedMs).unref(),
    () => {
      if (earlyChildren.get(key) === started) earlyChildren.delete(key);
    },
  );
}

/**
 * Starts the confined child (or takes the one started early with the same options, if it is
 * still alive); resolves with it and the URL of the worker script it should start.
 */
export async function startPythonChild(o: PythonChildOptions): Promise<StartedChild> {
  const key = launchKey(o);
  const early = earlyChildren.get(key);
  if (early !== undefined) {
    earlyChildren.delete(key);
    const s = await early.catch(() => undefined);
    if (s && !s.child.ended) return s;
  }
  return spawnPythonChild(o);
}

async function spawnPythonChild(o: PythonChildOptions): Promise<StartedChild> {
  const { child, worker } = await pythonChildEntries();
  const index = o.indexDir ?? pyodideDir();
  const workerUrl = pathToFileURL(worker).href;
  const indexURL = `${index}/`;
  return {
    child: spawnConfinedChild({
      entry: child,
      read: [worker, index, ...(o.read ?? [])],
      write: o.write ?? [],
      workers: true,
      heapMb: CHILD_HEAP_MB,
      rssLimitMb: o.memoryMb,
      maxFrameBytes: o.maxFrameBytes,
      // fd 4: the pipe the child's Pyodide worker uses for call_tool.
      extraPipes: 1,
      // The child starts its worker with these before its options come (`process-child.ts`).
      args: [workerUrl, indexURL],
    }),
    workerUrl,
    indexURL,
  };
}
