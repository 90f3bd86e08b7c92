import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a `worker_threads` worker running the TypeScript module at `entry`. The worker receives
 * `workerData` as usual (plus the entry's URL under `__armatureEntry`).
 */
export function startNodeWorker(entry: URL, options: WorkerOptions = {}): Worker {
  return new Worker(new URL('./node-worker-bootstrap.mjs', import.meta.url), {
    ...options,
    workerData: { ...(options.workerData as object), __armatureEntry: entry.href },
  });
}
