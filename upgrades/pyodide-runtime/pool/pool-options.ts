/**
 * The options of the runtime pool (sessions, each with its own Python runtime and globals): their
 * defaults and the checks that refuse a value the pool cannot take. They are declared, with the
 * runtime's other options, in `runtime-options.ts`.
 */
import { MAX_TIMER_MS, timeoutProblem } from '../../../src/kernel/bounded.ts';
import { RuntimeOptionError, type PoolOptions } from '../host/runtime-options.ts';

/** {@link PoolOptions} with every default filled in. */
export interface ResolvedPoolOptions {
  size: number;
  idleMs: number;
  graceMs: number;
  spares: number;
  queueLimit: number;
}

/** Most runtimes a pool may hold: each is an interpreter of tens to hundreds of MB. */
const MAX_POOL_SIZE = 64;

/** The machine's cores as this engine reports them, at least 1. */
function defaultPoolSize(): number {
  const g = globalThis as { process?: { getBuiltinModule?: (id: string) => unknown }; navigator?: { hardwareConcurrency?: number } };
  const os = g.process?.getBuiltinModule?.('node:os') as { availableParallelism?: () => number; cpus(): unknown[] } | undefined;
  const cores = os ? (os.availableParallelism?.() ?? os.cpus().length) : (g.navigator?.hardwareConcurrency ?? 1);
  return Math.min(MAX_POOL_SIZE, Math.max(1, Math.floor(cores) || 1));
}

const whole = (v: unknown, min: number, max: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Fills in the defaults of {@link PoolOptions}; throws a `RuntimeOptionError` naming a value it cannot take. */
export function resolvePoolOptions(options: PoolOptions): ResolvedPoolOptions {
  const { poolSize, poolIdleMs, poolGraceMs, poolSpares, poolQueueLimit } = options;
  if (poolSize !== undefined && !whole(poolSize, 1, MAX_POOL_SIZE)) {
    throw new RuntimeOptionError('poolSize', poolSize, `it must be a whole number of runtimes from 1 to ${MAX_POOL_SIZE}`, `Leave it out for one per core (${defaultPoolSize()} here), or pass e.g. 2.`);
  }
  if (poolIdleMs !== undefined && timeoutProblem(poolIdleMs, 'poolIdleMs')) {
    throw new RuntimeOptionError('poolIdleMs', poolIdleMs, `it must be 1 to ${MAX_TIMER_MS} ms`, 'Leave it out for 300000 (5 minutes).');
  }
  if (poolGraceMs !== undefined && !whole(poolGraceMs, 0, MAX_TIMER_MS)) {
    throw new RuntimeOptionError('poolGraceMs', poolGraceMs, `it must be a whole number of ms from 0 to ${MAX_TIMER_MS}`, 'Leave it out for 1000 (one second).');
  }
  if (poolSpares !== undefined && !whole(poolSpares, 0, MAX_POOL_SIZE)) {
    throw new RuntimeOptionError('poolSpares', poolSpares, `it must be a whole number of runtimes from 0 to ${MAX_POOL_SIZE}`, 'Leave it out for 1, or pass 0 to start no runtime before a session needs it.');
  }
  if (poolQueueLimit !== undefined && !whole(poolQueueLimit, 0, 100_000)) {
    throw new RuntimeOptionError('poolQueueLimit', poolQueueLimit, 'it must be a whole number of runs from 0 to 100000', 'Leave it out for 256.');
  }
  return {
    size: poolSize ?? defaultPoolSize(),
    idleMs: poolIdleMs ?? 300_000,
    graceMs: poolGraceMs ?? 1000,
    spares: poolSpares ?? 1,
    queueLimit: poolQueueLimit ?? 256,
  };
}
