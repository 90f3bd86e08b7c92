/**
 * The contract of a confined worker (`confined-worker.ts`): its options and limits, and what a
 * running one offers. Platform-free: both the Node and the browser host implement it.
 */
import type { SandboxError } from './errors.ts';
import type { LogLevel } from './protocol.ts';

/** A host function agent code may call through `ctx`. */
export type Capability = (...args: unknown[]) => unknown | Promise<unknown>;

/** Limits of a confined worker. */
export interface ConfinedWorkerLimits {
  /** Node: the child's V8 heap cap, in MiB (its resident memory may exceed it by a fixed allowance). Browsers cannot cap a worker's memory. Default: 256. */
  memoryMb?: number;
  /** Most time a call (and loading the module: its top level) may take, in ms; past it the worker is restarted. Default: 5000. */
  callTimeoutMs?: number;
  /**
   * Most time starting the worker may take before the agent's module begins to run, in ms. Not the
   * agent's time: a busy machine starts processes slowly. Past it the start fails with
   * `SANDBOX_START_TIMEOUT`. Default: 30000.
   */
  startTimeoutMs?: number;
  /**
   * Most time the handlers of one delivered event may take, in ms: until each has returned and
   * the promise it returned (if any) has settled. Past it the worker is stopped, not restarted —
   * a handler that ran away would run away again on the next such event, holding a core each
   * time — with `SANDBOX_HANDLER_TIMEOUT` for its calls and {@link ConfinedWorkerOptions.onStop}
   * told. Default: 5000.
   */
  handlerTimeoutMs?: number;
  /** Largest message either side may send (arguments, results, capability answers, fetched bodies), in bytes. Default: 8 MiB. */
  maxMessageBytes?: number;
}

/** Options of {@link createConfinedWorker}. */
export interface ConfinedWorkerOptions {
  /** For errors, logs and the dashboard. */
  name: string;
  /** The agent's ES module source. It may not import anything. */
  source: string;
  /** The ONLY things the agent's code can reach, e.g. `{ call_tool, emit, status, storage_read, storage_write }`. */
  capabilities: Record<string, Capability>;
  /** Origins the code's `fetch` may reach, or `none`. Default: `none`. */
  network?: 'none' | string[];
  /** Default: see {@link ConfinedWorkerLimits}. */
  limits?: ConfinedWorkerLimits;
  /** Hears the agent's `console` output (each line cut to 8 KB). Default: dropped. */
  onLog?: (entry: { level: LogLevel; text: string }) => void;
  /** Hears each restart (after a timeout or a crash); the module is loaded again, its state is lost. Default: none. */
  onRestart?: (event: { reason: RestartReason; error: SandboxError }) => void;
  /**
   * Hears that the worker was stopped for good instead of restarted: a handler ran past
   * `handlerTimeoutMs`, or a call made with `onTimeout: 'stop'` timed out. Calls in flight and
   * later ones reject with `error`. Default: none.
   */
  onStop?: (event: { reason: StopReason; error: SandboxError }) => void;
  /** Browser: URL of the worker script. Default: {@link SANDBOX_WORKER_PATH} on the page's origin. */
  workerUrl?: string | URL;
}

/** Why a worker was restarted. */
export type RestartReason = 'timeout' | 'crash' | 'memory' | 'oversize';

/** Why a worker was stopped for good (see {@link ConfinedWorkerOptions.onStop}). */
export type StopReason = 'timeout' | 'handler-timeout';

/** What {@link ConfinedWorker.describe} reports. */
export interface ModuleDescription {
  /** The module's export names, sorted. */
  exports: string[];
  /** Keys of the default export, when it is an object (e.g. `init`, `tools`, `dispose`). */
  members?: string[];
  /** Keys of the `tools` object (an export, or a member of the default export). */
  tools?: string[];
}

/** Options of one {@link ConfinedWorker.call}. */
export interface CallOptions {
  /** Default: the worker's `limits.callTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Rejects the call at once when aborted. The code keeps running in the worker until it ends or
   * its timeout restarts the worker.
   */
  signal?: AbortSignal;
  /**
   * What a timeout does to the worker: `restart` it (its module is loaded again, its state lost),
   * or `stop` it for good (a call whose failure leaves the module of no further use, such as an
   * upgrade's `init`). Default: `restart`.
   */
  onTimeout?: 'restart' | 'stop';
}

/** A running confined worker. */
export interface ConfinedWorker {
  /** The worker's name. */
  readonly name: string;
  /**
   * Calls an export of the loaded module with `args` followed by `ctx`: `call(['default'], [args])`
   * runs `default(args, ctx)`, `call(['tools', name], [args])` runs `tools[name](args, ctx)`,
   * `call(['init'], [])` runs `init(ctx)`. A path not found among the module's exports is looked up
   * in its default export. A timeout terminates and restarts the worker (the module is loaded
   * again) and rejects with `SANDBOX_TIMEOUT`; a throw inside rejects with an {@link AgentCodeError}
   * carrying the agent's message and stack; never hangs.
   */
  call(path: string[], args: unknown[], opts?: CallOptions): Promise<unknown>;
  /**
   * Pushes an event into the worker, to the handlers the code registered with `ctx.on(name, handler)`.
   * Dropped when no handler listens to `name` (nothing crosses), and while the worker restarts.
   * Its handlers have `limits.handlerTimeoutMs` to finish; past it the worker is stopped (see
   * `onStop`). Events go on to everyone else meanwhile: delivering never waits for the worker.
   */
  deliver(name: string, payload: unknown): void;
  /** Whether the code has a handler for event `name` (see {@link deliver}). */
  listens(name: string): boolean;
  /** Which exports the module has (e.g. to check declared vs implemented tools). */
  describe(): Promise<ModuleDescription>;
  /** Stops the worker; calls in flight and later calls reject with `SANDBOX_TERMINATED`. */
  terminate(): Promise<void>;
}
