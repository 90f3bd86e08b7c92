/**
 * One small adapter over the two kinds of worker: a `worker_threads` Worker in Node and a module
 * Web Worker in the browser. Node-only modules are imported lazily, so browser bundles never load them.
 */
import { PYODIDE_FILES_PATH, PYODIDE_WORKER_PATH, pyodideWorkerScript } from '../../../src/platform/package-layout.ts';
import { secretId } from '../protocol/ids.ts';

/** What the runtime needs from a worker. */
export interface WorkerHandle {
  post(msg: unknown, transfer?: Transferable[]): void;
  onMessage(handler: (msg: unknown) => void): void;
  /** An uncaught error inside the worker; the host must survive it. */
  onError(handler: (error: Error) => void): void;
  /** The worker stopped (terminated, crashed, exited or closed itself); `why` says how when the code alone does not. */
  onExit(handler: (code: number, why?: string) => void): void;
  terminate(): Promise<void>;
}

/** Whether this code runs in Node rather than a browser. */
export function inNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined';
}

/** A worker started before its runtime asked for one (see {@link spawnWorkerEarly}). */
let early: { url: string; worker: Promise<WorkerHandle>; dead: boolean } | undefined;

/**
 * Node: starts the worker for `url` now and has it load Pyodide's JavaScript, for the next
 * {@link spawnWorker} of the same `url` to take. The confined child does this while it waits for
 * its options; a worker that died meanwhile is not taken. Resolves with the worker (for tests).
 */
export function spawnWorkerEarly(url: string, preload: { indexURL: string; confine: boolean }): Promise<WorkerHandle> {
  // One at a time: an earlier one nobody took is stopped, not left running (nor taken here).
  const previous = early;
  early = undefined;
  void previous?.worker.then((w) => w.terminate()).catch(() => undefined);
  const slot = { url, worker: spawnWorker(url), dead: false };
  early = slot;
  slot.worker.then(
    (w) => {
      w.onError(() => (slot.dead = true));
      w.onExit(() => (slot.dead = true));
      w.post({ type: 'preload', id: 'preload', ...preload });
    },
    () => (slot.dead = true),
  );
  return slot.worker;
}

/**
 * Starts the Pyodide worker (or takes the one started early for the same script). `url` overrides
 * the worker script (browser bundles pass their own). Default: the sources' `worker/main.ts` or the
 * built `pyodide-worker.js` (see `package-layout.ts`).
 */
export async function spawnWorker(url?: string | URL): Promise<WorkerHandle> {
  const slot = early;
  if (slot && url !== undefined && String(url) === slot.url) {
    early = undefined;
    const w = await slot.worker.catch(() => undefined);
    if (w && !slot.dead) return w;
  }
  if (inNode()) {
    const { startNodeWorker } = await import('../../../src/platform/node-worker.ts');
    const { MessageChannel: NodeChannel } = await import('node:worker_threads');
    const w = startNodeWorker(url ? new URL(url) : pyodideWorkerScript);
    // As in browsers: the worker's one channel is a port it keeps before Python runs. Python in an
    // unconfined worker can reach the worker's own port (worker_threads.parentPort), so nothing
    // it posts there is listened to.
    const channel = new NodeChannel();
    w.postMessage({ type: 'connect', port: channel.port2 }, [channel.port2]);
    return {
      post: (m, t) => channel.port1.postMessage(m, t as never),
      onMessage: (h) => channel.port1.on('message', h),
      onError: (h) => w.on('error', h),
      onExit: (h) => w.on('exit', h),
      terminate: async () => {
        await w.terminate();
        channel.port1.close();
      },
    };
  }
  const w = new Worker(url ?? pyodideWorkerScript, { type: 'module', name: 'armature-pyodide' });
  // The worker's one channel to this page: a port it keeps before Python runs. Once confined it
  // has no postMessage of its own, and the worker's global channel is never listened to here.
  const channel = new MessageChannel();
  // A Web Worker that closes itself (or that the browser kills) fires no event here, and a run in
  // it would wait for its timeout. The worker holds a Web Lock of this name while it lives (taken
  // before it first answers, see `worker/port.ts`); once it says so, the page asks for the
  // same lock, and is granted it exactly when the worker's scope ends.
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  const lock = locks ? `armature-pyodide-worker-${secretId('life')}` : undefined;
  w.postMessage({ type: 'connect', lock }, [channel.port2]);
  const messageHandlers: ((msg: unknown) => void)[] = [];
  const exitHandlers: ((code: number, why?: string) => void)[] = [];
  let terminated = false;
  // Asked for once the worker says it holds the lock (`life-lock`, on the private port it alone
  // has): granted when the worker's scope ends. A worker that never says so is not watched.
  const watch = () =>
    void locks!.request(lock!, () => {
      if (terminated) return;
      terminated = true;
      w.terminate();
      channel.port1.close();
      for (const h of exitHandlers) h(0, 'the Python worker closed: its scope ended (close() or the browser stopped it)');
    });
  channel.port1.onmessage = (e) => {
    const data = e.data as { type?: unknown; lock?: unknown } | null;
    if (lock && data?.type === 'life-lock') {
      if (data.lock === lock) watch();
      return;
    }
    for (const h of messageHandlers) h(e.data);
  };
  return {
    post: (m, t) => channel.port1.postMessage(m, t ?? []),
    onMessage: (h) => messageHandlers.push(h),
    onError: (h) =>
      w.addEventListener('error', (e) => {
        e.preventDefault();
        h(
          new Error(
            e.message ||
              `the Pyodide worker ${String(url ?? pyodideWorkerScript)} failed to start: serve it (armature/server's armatureMiddleware or pyodideWorkerMiddleware, startServer, or the Vite plugin armature/vite serve it at ${PYODIDE_WORKER_PATH}) or pass config.PyodideRuntime.workerUrl; the browser console says more`,
          ),
        );
      }),
    onExit: (h) => exitHandlers.push(h),
    terminate: async () => {
      if (terminated) return;
      terminated = true;
      w.terminate();
      channel.port1.close();
      for (const h of exitHandlers) h(1);
    },
  };
}

/**
 * Default `indexURL`: the installed npm package — in Node its folder; in a browser
 * `PYODIDE_FILES_PATH` (`/pyodide/`) on the page's origin, where `armature/server`'s middleware,
 * `startServer` and the Vite plugin serve it.
 */
export async function defaultIndexURL(): Promise<string> {
  if (inNode()) {
    const { createRequire } = await import('node:module');
    const { dirname } = await import('node:path');
    return `${dirname(createRequire(import.meta.url).resolve('pyodide/package.json'))}/`;
  }
  return new URL(PYODIDE_FILES_PATH, location.href).href;
}
