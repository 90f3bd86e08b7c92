/**
 * The worker's side of its message channel: a private port the host sends first, over `parentPort`
 * in a Node `worker_threads` worker and over the global scope in a Web Worker. Captured before
 * Python runs; the host never listens to the worker's own channel. Node modules are imported
 * lazily, so browser bundles never load them.
 */
import type { PythonErrorInfo, WorkerMessage } from '../protocol/protocol.ts';

/** How the worker talks to its host. */
export interface Port {
  post(msg: WorkerMessage, transfer?: Transferable[]): void;
  listen(handler: (msg: unknown) => void): void;
}

/** Whether this worker is a Node `worker_threads` worker (else a browser Web Worker). */
export const isNode =
  typeof process !== 'undefined' && !!process.versions?.node && typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === 'undefined';

/** The port of the worker this code runs in. */
export async function openPort(): Promise<Port> {
  if (isNode) {
    // The host's first message on the worker's own port carries a private port, the only one it
    // listens to (Python in an unconfined worker can reach `parentPort`).
    const { parentPort } = await import('node:worker_threads');
    const port = await new Promise<import('node:worker_threads').MessagePort>((resolve) => {
      const first = (m: { type?: unknown; port?: import('node:worker_threads').MessagePort } | null) => {
        if (m?.type !== 'connect' || !m.port) return;
        parentPort!.off('message', first);
        resolve(m.port);
      };
      parentPort!.on('message', first);
    });
    const post = port.postMessage.bind(port);
    return {
      post: (m, t) => post(m, t as never),
      listen: (h) => port.on('message', h),
    };
  }
  // The host's first message carries the port that is this worker's only channel from then on
  // (the confinement deletes the global postMessage before Python runs).
  const scope = globalThis as unknown as {
    addEventListener(t: string, h: (e: MessageEvent) => void): void;
    removeEventListener(t: string, h: (e: MessageEvent) => void): void;
  };
  const { port, lock } = await new Promise<{ port: MessagePort; lock: unknown }>((resolve) => {
    const first = (e: MessageEvent) => {
      const data = e.data as { type?: unknown; lock?: unknown } | null;
      if (data?.type !== 'connect' || !e.ports[0]) return;
      scope.removeEventListener('message', first);
      resolve({ port: e.ports[0], lock: data.lock });
    };
    scope.addEventListener('message', first);
  });
  // Held, then said so on the private port: the host watches only a lock it knows is held.
  if (typeof lock === 'string' && (await holdLifeLock(lock))) port.postMessage({ type: 'life-lock', lock });
  const post = port.postMessage.bind(port);
  return {
    post: (m, t) => post(m, t ?? []),
    listen: (h) => {
      port.onmessage = (e) => h(e.data);
    },
  };
}

/**
 * Holds the Web Lock `name` for as long as this worker lives (resolves once it is held, to false
 * when this scope has no Web Locks). A Web
 * Worker that closes itself, or that the browser kills, fires no event on the page, and its
 * thread may be busy in Python for minutes: the lock is what the host watches instead, released
 * by the browser only when this worker's scope ends. Taken before any user code, and the
 * confinement removes `navigator` afterwards, so Python can neither release nor take it.
 */
async function holdLifeLock(name: string): Promise<boolean> {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  if (!locks) return false;
  await new Promise<void>((held) => {
    void locks.request(name, () => {
      held();
      return new Promise<never>(() => undefined);
    });
  });
  return true;
}

/**
 * The status of an exit of the interpreter (`os._exit(n)`, or a `SystemExit` that ends the C
 * runtime): Emscripten throws an `ExitStatus`. The interpreter is dead after it, though later
 * runs may seem to work, so it is a crash: the worker is replaced.
 */
export function exitStatus(e: unknown): number | undefined {
  const err = e as { name?: unknown; status?: unknown; message?: unknown } | undefined;
  if (err?.name === 'ExitStatus') return Number(err.status);
  const m = /Program terminated with exit\((-?\d+)\)/.exec(String(err?.message ?? e));
  return m ? Number(m[1]) : undefined;
}

/**
 * A failure outside user code as it crosses the boundary (`type` from the error when it has one).
 * A Python exception that escaped the runner (say, an interrupt landing in Armature's own code)
 * carries a whole traceback through Armature's frames: only its last line is kept. An exit of the
 * interpreter is a `SystemExit` (see {@link exitStatus}).
 */
export function jsError(e: unknown, type = 'RuntimeError'): PythonErrorInfo {
  const status = exitStatus(e);
  if (status !== undefined) return { type: 'SystemExit', message: `the Python interpreter exited with status ${status} (os._exit or an exit of the interpreter)`, traceback: '' };
  const err = e as { name?: string; type?: string; message?: string } | null | undefined;
  if (err?.name === 'PythonError' && typeof err.type === 'string') {
    const last = String(err.message ?? '').trimEnd().split('\n').at(-1) ?? '';
    const message = last.startsWith(`${err.type}: `) ? last.slice(err.type.length + 2) : last === err.type ? '' : last;
    return { type: err.type, message, traceback: '' };
  }
  return { type: err?.type ?? type, message: err?.message ?? String(e), traceback: '' };
}

/** Whether `e` leaves the interpreter unusable (the worker must be replaced). */
export function isFatal(e: unknown): boolean {
  return exitStatus(e) !== undefined || /fatally failed|Aborted\(|unreachable|memory access out of bounds|Maximum call stack/.test(String((e as Error)?.message ?? e));
}
