/**
 * A confined worker: agent-written JavaScript (an ES module) run where it reaches nothing it was
 * not given. In Node it is a child process under the permission model (see `node-host.ts`); in a
 * browser a module Web Worker whose global scope is locked down and whose script is served with a
 * CSP forbidding network access and eval (see `browser-worker.ts`). Either way the agent's code
 * sees only `ctx` (the host's capabilities, each call a validated message), a `fetch` the host
 * performs under the network policy, and ECMAScript.
 */
import { quote } from '../kernel/bounded.ts';
import { isNode } from '../platform/detect.ts';
import { toWireError } from './agent-scope.ts';
import { AgentCodeError, SandboxError } from './errors.ts';
import { normalizeNetworkPolicy, policyFetch } from './network-policy.ts';
import {
  MAX_NAME_LENGTH,
  parseMessage,
  WorkerMessageSchema,
  type HostMessage,
  type LogLevel,
  type NetworkPolicy,
  type WireError,
  type WorkerMessage,
} from './protocol.ts';
import type { SandboxTransport, TransportExit, TransportOptions } from './transport.ts';

/** A host function agent code may call through `ctx`. */
export type Capability = (...args: unknown[]) => unknown | Promise<unknown>;

/** Limits of a confined worker. */
export interface ConfinedWorkerLimits {
  /** Node: the child's V8 heap cap, in MiB (its resident memory may exceed it by a fixed allowance). Browsers cannot cap a worker's memory. Default: 256. */
  memoryMb?: number;
  /** Most time a call (and loading the module) may take, in ms; past it the worker is restarted. Default: 5000. */
  callTimeoutMs?: number;
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
  /** Browser: URL of the worker script. Default: {@link SANDBOX_WORKER_PATH} on the page's origin. */
  workerUrl?: string | URL;
}

/** Why a worker was restarted. */
export type RestartReason = 'timeout' | 'crash' | 'memory' | 'oversize';

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
  /** Pushes an event into the worker, to the handlers the code registered with `ctx.on(name, handler)`. Dropped while the worker restarts. */
  deliver(name: string, payload: unknown): void;
  /** Which exports the module has (e.g. to check declared vs implemented tools). */
  describe(): Promise<ModuleDescription>;
  /** Stops the worker; calls in flight and later calls reject with `SANDBOX_TERMINATED`. */
  terminate(): Promise<void>;
}

/** Capability names: JavaScript identifiers, so `ctx.name(...)` reads naturally. `on` is taken by events. */
const CAPABILITY_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

const DEFAULTS = { memoryMb: 256, callTimeoutMs: 5000, maxMessageBytes: 8 * 1024 * 1024 };

interface PendingCall {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: ReturnType<typeof setTimeout>;
  path: string[];
  /** The caller stopped waiting (its signal aborted); the call still counts against the worker. */
  abandoned: boolean;
}

/** One started worker process or Web Worker: a restart makes a new generation. */
interface Generation {
  transport: SandboxTransport;
  pending: Map<string, PendingCall>;
  ready: Promise<ModuleDescription>;
  dead: boolean;
}

function invalid(message: string, hint?: string): SandboxError {
  return new SandboxError('INVALID_OPTIONS', message, hint ? { hint } : undefined);
}

/**
 * Starts a confined worker and loads `source` in it. Resolves once the module has loaded; rejects
 * with `SANDBOX_LOAD_FAILED` (the module threw or does not parse), `SANDBOX_TIMEOUT` (its top level
 * ran past `callTimeoutMs`) or `INVALID_OPTIONS`.
 */
export async function createConfinedWorker(options: ConfinedWorkerOptions): Promise<ConfinedWorker> {
  const o = checkOptions(options);
  return confine(o, await transportStarter());
}

/** The starter of a platform's {@link SandboxTransport}. */
export type TransportStarter = (o: TransportOptions) => Promise<SandboxTransport>;

/**
 * {@link createConfinedWorker} over a given transport: the host's whole logic (validation,
 * capabilities, timeouts, restarts), independent of the platform. Tests drive it with a scripted
 * transport to send what a real worker would not.
 */
export async function createConfinedWorkerOver(startTransport: TransportStarter, options: ConfinedWorkerOptions): Promise<ConfinedWorker> {
  return confine(checkOptions(options), startTransport);
}

async function confine(o: CheckedOptions, startTransport: TransportStarter): Promise<ConfinedWorker> {
  const label = `[sandbox] ${quote(o.name, 60)}`;
  let generation: Promise<Generation> | undefined;
  let terminated = false;
  let seq = 0;

  const start = async (): Promise<Generation> => {
    const transport = await startTransport({ name: o.name, memoryMb: o.limits.memoryMb, maxMessageBytes: o.limits.maxMessageBytes, workerUrl: o.workerUrl });
    let settle!: { resolve(d: ModuleDescription): void; reject(e: unknown): void };
    const ready = new Promise<ModuleDescription>((resolve, reject) => (settle = { resolve, reject }));
    const g: Generation = { transport, pending: new Map(), ready, dead: false };
    let loaded = false;
    const loadTimer = setTimeout(() => {
      const error = new SandboxError('SANDBOX_TIMEOUT', `${label}: the module did not finish loading within ${o.limits.callTimeoutMs} ms`, {
        hint: 'Do less at the top level of the module (an endless loop there never finishes); move work into exported functions.',
      });
      kill(g, error);
      settle.reject(error);
    }, o.limits.callTimeoutMs);
    ready.then(
      () => (loaded = true),
      () => undefined,
    );
    ready.finally(() => clearTimeout(loadTimer)).catch(() => undefined);
    transport.onExit((exit) => died(g, exit, loaded, settle.reject));
    transport.onMessage((raw) => receive(g, raw, settle));
    transport.post({
      type: 'init',
      id: 'init',
      name: o.name,
      source: o.source,
      capabilities: Object.keys(o.capabilities),
      network: o.network,
      maxMessageBytes: o.limits.maxMessageBytes,
    });
    return g;
  };

  /** The generation to use: the current one once loaded, else a new one. */
  const live = async (): Promise<Generation> => {
    for (;;) {
      if (terminated) throw terminatedError();
      generation ??= start();
      const current = generation;
      let g: Generation;
      try {
        g = await current;
        await g.ready;
      } catch (e) {
        // A start that failed is not retried by the same caller; the next call tries afresh.
        if (generation === current) generation = undefined;
        throw e;
      }
      if (!g.dead) return g;
      if (generation === current) generation = undefined;
    }
  };

  const terminatedError = () => new SandboxError('SANDBOX_TERMINATED', `${label}: the worker was terminated`, { hint: 'Create a new worker.' });

  /** Ends generation `g` at once: its calls fail with `error`. */
  const kill = (g: Generation, error: SandboxError) => {
    if (g.dead) return;
    g.dead = true;
    for (const p of g.pending.values()) {
      clearTimeout(p.timer);
      if (!p.abandoned) p.reject(error);
    }
    g.pending.clear();
    void g.transport.terminate().catch(() => undefined);
  };

  /** Ends `g` and starts its replacement at once, so the next call finds a loaded module. */
  const restart = (g: Generation, reason: RestartReason, error: SandboxError, others: SandboxError) => {
    const wasCurrent = !g.dead;
    kill(g, others);
    if (terminated || !wasCurrent) return;
    generation = start();
    generation.then((n) => n.ready).catch(() => undefined);
    try {
      o.onRestart?.({ reason, error });
    } catch {
      // A listener's failure does not stop the restart.
    }
  };

  const died = (g: Generation, exit: TransportExit, loaded: boolean, failLoad: (e: unknown) => void) => {
    if (g.dead) return;
    const error =
      exit.reason === 'memory'
        ? new SandboxError('SANDBOX_CRASHED', `${label}: the worker ran out of memory: ${exit.detail}; it was restarted`, {
            hint: `Use less memory, or raise limits.memoryMb (now ${o.limits.memoryMb}).`,
            details: { reason: exit.reason },
          })
        : exit.reason === 'oversize'
          ? new SandboxError('MESSAGE_TOO_LARGE', `${label}: ${exit.detail}; the worker was restarted`, {
              hint: `Return less data, or raise limits.maxMessageBytes (now ${o.limits.maxMessageBytes}).`,
              details: { reason: exit.reason },
            })
          : new SandboxError('SANDBOX_CRASHED', `${label}: the worker stopped: ${exit.detail}`, { details: { reason: exit.reason } });
    if (!loaded) {
      kill(g, error);
      failLoad(new SandboxError('SANDBOX_LOAD_FAILED', `${label}: the worker stopped while loading the module: ${exit.detail}`, { cause: error }));
      return;
    }
    restart(g, exit.reason === 'memory' ? 'memory' : exit.reason === 'oversize' ? 'oversize' : 'crash', error, error);
  };

  const send = (g: Generation, msg: HostMessage) => {
    if (g.dead) return;
    try {
      g.transport.post(msg);
    } catch (e) {
      // An answer too large (or not cloneable) for the worker still answers: with the error.
      if ((msg.type === 'cap-result' || msg.type === 'fetch-result') && msg.ok) g.transport.post({ type: msg.type, id: msg.id, ok: false, error: toWireError(e) } as HostMessage);
      else throw e;
    }
  };

  const receive = (g: Generation, raw: unknown, settle: { resolve(d: ModuleDescription): void; reject(e: unknown): void }) => {
    if (g.dead) return;
    const parsed = parseMessage(WorkerMessageSchema, raw);
    if (!parsed.ok) {
      report('warn', `${label}: ignored a message from the worker: ${parsed.error}`);
      return;
    }
    const msg: WorkerMessage = parsed.value;
    switch (msg.type) {
      case 'ready':
        return settle.resolve(msg.members || msg.tools ? { exports: msg.exports, ...(msg.members ? { members: msg.members } : {}), ...(msg.tools ? { tools: msg.tools } : {}) } : { exports: msg.exports });
      case 'load-failed': {
        const e = msg.error;
        const error = new SandboxError('SANDBOX_LOAD_FAILED', `${label}: the module failed to load: ${e.name}: ${e.message}`, {
          hint: e.code === 'IMPORT_REFUSED' ? 'Confined code cannot import modules: use the capabilities passed in ctx.' : 'Fix the module and create the worker again.',
          details: { name: e.name, message: e.message, stack: e.stack },
        });
        kill(g, error);
        return settle.reject(error);
      }
      case 'result': {
        const p = g.pending.get(msg.id);
        if (!p) return;
        g.pending.delete(msg.id);
        clearTimeout(p.timer);
        if (p.abandoned) return;
        if (msg.ok) return p.resolve(msg.value);
        return p.reject(resultError(msg.error, p.path));
      }
      case 'cap': {
        const cap = Object.prototype.hasOwnProperty.call(o.capabilities, msg.name) ? o.capabilities[msg.name] : undefined;
        if (!cap) {
          return send(g, {
            type: 'cap-result',
            id: msg.id,
            ok: false,
            error: { name: 'TypeError', message: `no capability named ${quote(msg.name)}; this worker has ${Object.keys(o.capabilities).join(', ') || 'none'}`, code: 'UNKNOWN_CAPABILITY' },
          });
        }
        void Promise.resolve()
          .then(() => cap(...msg.args))
          .then(
            (value) => send(g, { type: 'cap-result', id: msg.id, ok: true, value }),
            (e) => send(g, { type: 'cap-result', id: msg.id, ok: false, error: capabilityError(e) }),
          )
          .catch((e) => report('error', `${label}: the answer of ${msg.name} could not be sent: ${(e as Error).message}`));
        return;
      }
      case 'fetch':
        void policyFetch(o.network, msg, { maxBytes: o.limits.maxMessageBytes - 64 * 1024, timeoutMs: o.limits.callTimeoutMs, owner: o.name })
          .then(
            (response) => send(g, { type: 'fetch-result', id: msg.id, ok: true, response }),
            (e) => send(g, { type: 'fetch-result', id: msg.id, ok: false, error: capabilityError(e) }),
          )
          .catch((e) => report('error', `${label}: a fetch answer could not be sent: ${(e as Error).message}`));
        return;
      case 'log':
        return report(msg.level, msg.text);
    }
  };

  const report = (level: LogLevel, text: string) => {
    try {
      o.onLog?.({ level, text });
    } catch {
      // A log listener's failure is not the worker's.
    }
  };

  const resultError = (e: WireError, path: string[]): Error => {
    if (e.code === 'MESSAGE_TOO_LARGE') {
      return new SandboxError('MESSAGE_TOO_LARGE', `${label}: ${path.join('.')}: ${e.message}`, {
        hint: `Return less data, or raise limits.maxMessageBytes (now ${o.limits.maxMessageBytes}).`,
      });
    }
    return new AgentCodeError(o.name, e);
  };

  // Waits for the first load, so a module that does not load is reported at once.
  await live();

  return {
    name: o.name,

    async call(path, args, opts = {}) {
      if (!Array.isArray(path) || path.length < 1 || path.length > 8 || !path.every((s) => typeof s === 'string' && s.length > 0 && s.length <= MAX_NAME_LENGTH)) {
        throw invalid(`${label}: call path must be 1 to 8 export names, got ${quote(JSON.stringify(path)?.slice(0, 200))}`, "e.g. call(['default'], [args])");
      }
      if (!Array.isArray(args) || args.length > 64) throw invalid(`${label}: call arguments must be an array of at most 64 values`);
      const timeoutMs = opts.timeoutMs ?? o.limits.callTimeoutMs;
      if (!(timeoutMs > 0)) throw invalid(`${label}: timeoutMs must be a positive number of ms, got ${quote(timeoutMs)}`);
      if (opts.signal?.aborted) throw aborted(path);
      const g = await live();
      if (opts.signal?.aborted) throw aborted(path);
      const id = `k${++seq}`;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const p = g.pending.get(id);
          if (!p) return;
          g.pending.delete(id);
          const error = new SandboxError('SANDBOX_TIMEOUT', `${label}: ${path.join('.')} did not finish within ${timeoutMs} ms; the worker was restarted`, {
            hint: 'Make the work smaller or raise the timeout. The module was loaded again: its state was lost.',
            details: { path, timeoutMs },
          });
          if (!p.abandoned) reject(error);
          restart(g, 'timeout', error, new SandboxError('SANDBOX_CRASHED', `${label}: the worker was restarted because ${path.join('.')} timed out`, { details: { path } }));
        }, timeoutMs);
        const entry: PendingCall = { resolve, reject, timer, path, abandoned: false };
        g.pending.set(id, entry);
        opts.signal?.addEventListener(
          'abort',
          () => {
            if (!g.pending.has(id) || entry.abandoned) return;
            entry.abandoned = true;
            reject(aborted(path));
          },
          { once: true },
        );
        try {
          g.transport.post({ type: 'call', id, path, args });
        } catch (e) {
          g.pending.delete(id);
          clearTimeout(timer);
          reject(e);
        }
      });
    },

    deliver(name, payload) {
      if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH) throw invalid(`${label}: event names are 1 to ${MAX_NAME_LENGTH} characters, got ${quote(name)}`);
      if (terminated || !generation) return;
      void generation.then(
        async (g) => {
          await g.ready;
          send(g, { type: 'deliver', id: 'event', name, payload });
        },
      ).catch((e) => report('error', `${label}: event ${quote(name)} was not delivered: ${(e as Error).message}`));
    },

    async describe() {
      return (await live()).ready;
    },

    async terminate() {
      if (terminated) return;
      terminated = true;
      const current = generation;
      generation = undefined;
      const g = await current?.catch(() => undefined);
      if (g) kill(g, terminatedError());
      await g?.transport.terminate().catch(() => undefined);
    },
  };

  function aborted(path: string[]): SandboxError {
    return new SandboxError('SANDBOX_ABORTED', `${label}: the call of ${path.join('.')} was aborted`, { hint: 'The code may still be running until the call timeout.' });
  }
}

/** The error a capability's failure becomes for the agent: its message and code, not the host's stack. */
function capabilityError(e: unknown): WireError {
  const w = toWireError(e);
  return w.code === undefined ? { name: w.name, message: w.message } : { name: w.name, message: w.message, code: w.code };
}

interface CheckedOptions {
  name: string;
  source: string;
  capabilities: Record<string, Capability>;
  network: NetworkPolicy;
  limits: Required<ConfinedWorkerLimits>;
  onLog?: ConfinedWorkerOptions['onLog'];
  onRestart?: ConfinedWorkerOptions['onRestart'];
  workerUrl?: string | URL;
}

function checkOptions(options: ConfinedWorkerOptions): CheckedOptions {
  if (!options || typeof options !== 'object') throw invalid('[sandbox] createConfinedWorker needs options { name, source, capabilities }');
  const { name, source, capabilities } = options;
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) throw invalid(`[sandbox] name must be 1 to 200 characters, got ${quote(name)}`);
  const label = `[sandbox] ${quote(name, 60)}`;
  if (typeof source !== 'string') throw invalid(`${label}: source must be the text of an ES module`);
  if (!capabilities || typeof capabilities !== 'object') throw invalid(`${label}: capabilities must be an object of functions (it may be empty)`);
  const caps: Record<string, Capability> = Object.create(null);
  for (const key of Object.keys(capabilities)) {
    if (!CAPABILITY_NAME.test(key) || key === 'on') {
      throw invalid(`${label}: capability name ${quote(key)} is not usable`, 'Name capabilities like JavaScript identifiers (e.g. call_tool); "on" is reserved for events.');
    }
    const fn = capabilities[key];
    if (typeof fn !== 'function') throw invalid(`${label}: capability ${key} is a ${typeof fn}, not a function`);
    caps[key] = fn;
  }
  const limits = { ...DEFAULTS };
  for (const [key, value] of Object.entries(options.limits ?? {})) {
    if (!(key in DEFAULTS)) throw invalid(`${label}: unknown limit ${quote(key)}`, `Limits are ${Object.keys(DEFAULTS).join(', ')}.`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalid(`${label}: limits.${key} must be a positive number, got ${quote(value)}`);
    limits[key as keyof typeof DEFAULTS] = Math.floor(value);
  }
  if (limits.memoryMb < 16) throw invalid(`${label}: limits.memoryMb must be at least 16, got ${limits.memoryMb}`);
  if (limits.maxMessageBytes < 1024) throw invalid(`${label}: limits.maxMessageBytes must be at least 1024, got ${limits.maxMessageBytes}`);
  return {
    name,
    source,
    capabilities: caps,
    network: normalizeNetworkPolicy(options.network, name),
    limits,
    onLog: options.onLog,
    onRestart: options.onRestart,
    workerUrl: options.workerUrl,
  };
}

/** The platform's transport: Node's child process or the browser's Web Worker (imported only where it runs). */
async function transportStarter(): Promise<TransportStarter> {
  if (isNode()) return (await import('./node-host.ts')).startNodeSandbox;
  return (await import('./browser-host.ts')).startBrowserSandbox;
}
