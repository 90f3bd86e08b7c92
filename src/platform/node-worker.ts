import { Worker, type WorkerOptions } from 'node:worker_threads';
import { ArmatureError } from '../kernel/errors.ts';
import { fromSources, tsWorkerBootstrap } from './package-layout.ts';

/**
 * Starts a `worker_threads` worker running the module at `entry`. The worker receives
 * `workerData` as usual. A JavaScript entry (the built package) starts directly; a TypeScript
 * entry (the sources) starts through a bootstrap that registers tsx first, with the entry's URL
 * under `workerData.__armatureEntry`.
 */
export function startNodeWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  if (!fromSources)
    throw new ArmatureError(
      'TS_WORKER_NEEDS_SOURCES',
      `[worker] ${entry.href} is TypeScript, which only a checkout runs (through tsx); the installed package starts the built .js workers in dist/node/`,
    );
  return new Worker(tsWorkerBootstrap, {
    ...options,
    workerData: { ...(options.workerData as object), __armatureEntry: entry.href },
  });
}
