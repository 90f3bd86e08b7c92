/**
 * A confined worker: agent-written JavaScript (an ES module) run where it reaches nothing it was
 * not given. In Node it is a child process under the permission model (see `node-host.ts`); in a
 * browser a module Web Worker whose global scope is locked down and whose script is served with a
 * CSP forbidding network access and eval (see `browser-worker.ts`). Either way the agent's code
 * sees only `ctx` (the host's capabilities, each call a validated message), a `fetch` the host
 * performs under the network policy, and ECMAScript. The contract is `confined-worker-contract.ts`,
 * the options' checks `confined-worker-options.ts`; this file is the host's logic.
 */
import { quote, timeoutProblem } from '../kernel/bounded.ts';
import { isNode } from '../platform/detect.ts';
import { capabilityError, toWireError } from './agent-scope.ts';
import type { ConfinedWorker, ConfinedWorkerOptions, ModuleDescription, RestartReason, StopReason } from './confined-worker-contract.ts';
import { checkOptions, invalid, type CheckedOptions } from './confined-worker-options.ts';
import { AgentCodeError, exitError, handlerTimeoutError, loadTimeoutError, SandboxError, startTimeoutError } from './errors.ts';
import { policyFetch } from './network-policy.ts';
import { MAX_NAME_LENGTH, parseMessage, WorkerMessageSchema, type HostMessage, type LogLevel, type WireError, type WorkerMessage } from './protocol.ts';
import type { SandboxTransport, TransportExit, TransportOptions } from './transport.ts';

export type { Capability, CallOptions, ConfinedWorker, ConfinedWorkerLimits, ConfinedWorkerOptions, ModuleDescription, RestartReason, StopReason } from './confined-worker-contract.ts';

interface PendingCall {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: ReturnType<typeof setTimeout>;
  path: string[];
  /** The caller stopped waiting (its signal aborted); the call still counts against the worker. */
  abandoned: boolean;
}

/** Most event names one worker's code may listen to (each is checked on every event of the bus). */
const MAX_LISTENED = 256;

/** Most delivered events whose handlers have not finished; later ones are dropped until some finish. */
const MAX_UNFINISHED_DELIVERIES = 1024;

/** One started worker process or Web Worker: a restart makes a new generation. */
interface Generation {
  transport: SandboxTransport;
  pending: Map<string, PendingCall>;
  /** Delivered events whose handlers have not finished: the timer that stops the worker, by delivery id. */
  deliveries: Map<string, ReturnType<typeof setTimeout>>;
  ready: Promise<ModuleDescription>;
  dead: boolean;
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
  /** Why it was stopped for good (a handler or a call past its limit), for every later call. */
  let stoppedBy: SandboxError | undefined;
  let droppedDeliveries = false;
  let seq = 0;
  /** Event names the current generation's code listens to (each generation registers its own). */
  let listened = new Set<string>();

  const start = async (): Promise<Generation> => {
    listened = new Set();
    const transport = await startTransport({ name: o.name, memoryMb: o.limits.memoryMb, maxMessageBytes: o.limits.maxMessageBytes, workerUrl: o.workerUrl });
    let settle!: { resolve(d: ModuleDescription): void; reject(e: unknown): void };
    const ready = new Promise<ModuleDescription>((resolve, reject) => (settle = { resolve, reject }));
    const g: Generation = { transport, pending: new Map(), deliveries: new Map(), ready, dead: false };
    let loaded = false;
    // Two limits: the worker's start (the machine's time), then the module's top level (the agent's).
    let phase: 'start' | 'module' | 'done' = 'start';
    let loadTimer: ReturnType<typeof setTimeout> | undefined;
    const watch = (ms: number, error: () => SandboxError) => {
      clearTimeout(loadTimer);
      loadTimer = setTimeout(() => {
        const e = error();
        kill(g, e);
        settle.reject(e);
      }, ms);
    };
    watch(o.limits.startTimeoutMs, () => startTimeoutError(label, o.limits.startTimeoutMs));
    const moduleRuns = () => {
      if (phase !== 'start') return;
      phase = 'module';
      watch(o.limits.callTimeoutMs, () => loadTimeoutError(label, o.limits.callTimeoutMs));
    };
    const settled = () => {
      phase = 'done';
      clearTimeout(loadTimer);
    };
    ready.then(() => ((loaded = true), settled()), settled);
    transport.onExit((exit) => died(g, exit, loaded, settle.reject));
    transport.onMessage((raw) => receive(g, raw, settle, moduleRuns));
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
      if (terminated) throw stoppedBy ?? terminatedError();
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
    for (const timer of g.deliveries.values()) clearTimeout(timer);
    g.deliveries.clear();
    void g.transport.terminate().catch(() => undefined);
  };

  /** Stops the worker for good with `error` (no restart): every call, now or later, fails with it. */
  const stop = (g: Generation, reason: StopReason, error: SandboxError) => {
    if (terminated) return;
    terminated = true;
    stoppedBy = error;
    generation = undefined;
    kill(g, error);
    try {
      o.onStop?.({ reason, error });
    } catch {
      // A listener's failure does not undo the stop.
    }
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
    const error = exitError(label, exit, o.limits);
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

  const receive = (g: Generation, raw: unknown, settle: { resolve(d: ModuleDescription): void; reject(e: unknown): void }, moduleRuns: () => void) => {
    if (g.dead) return;
    const parsed = parseMessage(WorkerMessageSchema, raw);
    if (!parsed.ok) {
      report('warn', `${label}: ignored a message from the worker: ${parsed.error}`);
      return;
    }
    const msg: WorkerMessage = parsed.value;
    switch (msg.type) {
      case 'loading':
        return moduleRuns();
      case 'delivered':
        clearTimeout(g.deliveries.get(msg.id));
        g.deliveries.delete(msg.id);
        return;
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
        const cap = Object.hasOwn(o.capabilities, msg.name) ? o.capabilities[msg.name] : undefined;
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
      case 'listen':
        if (!msg.on) listened.delete(msg.name);
        else if (listened.size < MAX_LISTENED) listened.add(msg.name);
        else report('warn', `${label}: listens to more than ${MAX_LISTENED} event names; ${quote(msg.name)} is not delivered`);
        return;
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
      const badTimeout = timeoutProblem(timeoutMs, 'timeoutMs');
      if (badTimeout) throw invalid(`${label}: ${badTimeout}`);
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
          if (opts.onTimeout === 'stop') stop(g, 'timeout', new SandboxError('SANDBOX_TIMEOUT', `${label}: ${path.join('.')} did not finish within ${timeoutMs} ms; the worker was stopped`, { details: { path, timeoutMs } }));
          else restart(g, 'timeout', error, new SandboxError('SANDBOX_CRASHED', `${label}: the worker was restarted because ${path.join('.')} timed out`, { details: { path } }));
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
      if (terminated || !generation || !listened.has(name)) return;
      void generation.then(
        async (g) => {
          await g.ready;
          if (g.dead) return;
          if (g.deliveries.size >= MAX_UNFINISHED_DELIVERIES) {
            if (!droppedDeliveries) report('warn', `${label}: the handlers of ${MAX_UNFINISHED_DELIVERIES} events have not finished; events are dropped until they do`);
            droppedDeliveries = true;
            return;
          }
          droppedDeliveries = false;
          const id = `d${++seq}`;
          const limit = o.limits.handlerTimeoutMs;
          send(g, { type: 'deliver', id, name, payload });
          // The answer comes in a later turn: the timer is set before it can arrive.
          g.deliveries.set(id, setTimeout(() => stop(g, 'handler-timeout', handlerTimeoutError(label, name, limit)), limit));
        },
      ).catch((e) => report('error', `${label}: event ${quote(name)} was not delivered: ${(e as Error).message}`));
    },

    listens: (name) => listened.has(name),

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

/** The platform's transport: Node's child process or the browser's Web Worker (imported only where it runs). */
async function transportStarter(): Promise<TransportStarter> {
  if (isNode()) return (await import('./node-host.ts')).startNodeSandbox;
  return (await import('./browser-host.ts')).startBrowserSandbox;
}
