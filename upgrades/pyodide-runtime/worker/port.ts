/**
 * The worker's side of its message channel: `parentPort` in a Node `worker_threads` worker, the
 * global scope in a Web Worker. Node modules are imported lazily, so browser bundles never load them.
 */
import type { PythonErrorInfo, WorkerMessage } from '../protocol.ts';

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
    const { parentPort } = await import('node:worker_threads');
    return {
      post: (m, t) => parentPort!.postMessage(m, t as never),
      listen: (h) => parentPort!.on('message', h),
    };
  }
  const scope = globalThis as unknown as { postMessage(m: unknown, t?: Transferable[]): void; addEventListener(t: string, h: (e: MessageEvent) => void): void };
  return {
    post: (m, t) => scope.postMessage(m, t ?? []),
    listen: (h) => scope.addEventListener('message', (e) => h(e.data)),
  };
}

/**
 * A failure outside user code as it crosses the boundary (`type` from the error when it has one).
 * A Python exception that escaped the runner (say, an interrupt landing in Armature's own code)
 * carries a whole traceback through Armature's frames: only its last line is kept.
 */
export function jsError(e: unknown, type = 'RuntimeError'): PythonErrorInfo {
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
  return /fatally failed|Aborted\(|unreachable|memory access out of bounds|Maximum call stack/.test(String((e as Error)?.message ?? e));
}
