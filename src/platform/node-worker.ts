import { Worker, type WorkerOptions } from 'node:worker_threads';
import { ArmatureError } from '../kernel/errors.ts';
import { fromSources, tsWorkerBootstrap } from './package-layout.ts';

/** Names of environment variables that hold secrets: provider keys, tokens, passwords. */
const SECRET_VARIABLE = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;

/**
 * `env` without the variables that hold secrets. Worker threads run agent-written code (Python's
 * `js.process.env` is the worker's environment), so provider keys such as `OPENAI_API_KEY` stay
 * in the main thread, where the agent reads them.
 */
export function workerEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !SECRET_VARIABLE.test(k)) out[k] = v;
  return out;
}

/**
 * Starts a `worker_threads` worker running the module at `entry`, with an environment without
 * secrets ({@link workerEnv}) unless `options.env` says otherwise. The worker receives `workerData`
 * as usual. A JavaScript entry (the built package) starts directly; a TypeScript entry (the
 * sources) starts through a bootstrap that registers tsx first, with the entry's URL under
 * `workerData.__armatureEntry`.
 */
export function startNodeWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { env: workerEnv(), ...options });
  if (!fromSources)
    throw new ArmatureError(
      'TS_WORKER_NEEDS_SOURCES',
      `[worker] ${entry.href} is TypeScript, which only a checkout runs (through tsx); the installed package starts the built .js workers in dist/node/`,
    );
  return new Worker(tsWorkerBootstrap, {
    env: workerEnv(),
    ...options,
    workerData: { ...(options.workerData as object), __armatureEntry: entry.href },
  });
}
