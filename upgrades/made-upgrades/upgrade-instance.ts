/**
 * One version of an agent-made upgrade in its own confined worker (a permission-model child
 * process in Node, a locked-down Web Worker in browsers): loads its module, runs `init(ctx)`, calls
 * its tools, delivers it the public events, and stops it — letting the calls in flight finish
 * (bounded), running its `dispose()` (bounded), terminating the worker. Used for a version under
 * test (the gate) and for the version in force.
 */
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import { AgentCodeError, createConfinedWorker, type ConfinedWorker, type ModuleDescription, type SandboxError } from '../../src/sandbox/index.ts';
import { upgradeCapabilities } from './capabilities.ts';
import { publicEvent } from './public-events.ts';
import { applyStatus, appendLog, initialStatus, type UpgradeStatus } from './status.ts';
import type { UpgradeStorage } from './storage.ts';
import type { MadeUpgradeContent } from './upgrade-spec.ts';

/** Time limits of an instance, in ms. */
export interface InstanceLimits {
  /** One tool call. */
  callTimeoutMs: number;
  /** `init(ctx)`, and loading the module (its top level), each. */
  initTimeoutMs: number;
  /** The handlers of one delivered event (`ctx.on`). */
  handlerTimeoutMs: number;
  /** `dispose()` when it stops. */
  disposeTimeoutMs: number;
  /** How long a stopping version's calls in flight may still run before they fail with `UPGRADE_REPLACED`. */
  drainTimeoutMs: number;
  /** Events and status updates per second, each. */
  rate: number;
}

/** Options of an {@link UpgradeInstance}. */
export interface InstanceOptions {
  content: MadeUpgradeContent;
  /** `v3`, or `test` for a version under test (names the worker and errors). */
  label: string;
  hash: string;
  /** A tool call on its behalf, allow-lists checked. */
  callTool(name: string, args: unknown): Promise<unknown>;
  /** Emits one of its declared events (full name). */
  emit(name: string, payload: unknown): void;
  storage: UpgradeStorage;
  network: 'none' | string[];
  limits: InstanceLimits;
  /** Counts its worker while it is alive: the kind's leak check covers its own instances only. Default: none. */
  workers?: { alive: number };
  /** Hears each status change. Default: none. */
  onStatus?(status: UpgradeStatus): void;
  /** Hears its console lines and worker restarts. Default: none. */
  onLog?(text: string): void;
  /**
   * It cannot go on: its worker was restarted (a call timed out or it crashed) and `init` could
   * not run again, or a handler ran past its limit and the worker was stopped. The error's code
   * says which: {@link TIMEOUT_CODES} for a limit its own code ran past.
   */
  onBroken?(error: ArmatureError): void;
}

/** Codes of the errors for a limit an upgrade's own code ran past: its top level, its `init`, a handler. */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(['LOAD_TIMEOUT', 'INIT_TIMEOUT', 'HANDLER_TIMEOUT']);

/** Most restarts (each running `init` again) in {@link RESTART_WINDOW_MS} before an instance is given up. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

/** One version of an agent-made upgrade and its worker. */
export class UpgradeInstance {
  status: UpgradeStatus = initialStatus();
  private worker: ConfinedWorker | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private subscription: Disposable | undefined;
  private stopping = false;
  /** Its first `init` finished: from then on a restarted worker runs `init` again. */
  private initialized = false;
  private restarts: number[] = [];
  private readonly id: string;

  constructor(private readonly o: InstanceOptions) {
    this.id = o.content.id;
  }

  /**
   * Starts the worker and loads the module; resolves to what it exports. Rejects with
   * `SANDBOX_LOAD_FAILED` and the agent's error, or `LOAD_TIMEOUT` when its top level runs past
   * `initTimeoutMs`.
   */
  async start(): Promise<ModuleDescription> {
    const local = this.o.content.tools.map((t) => t.name);
    const worker = await createConfinedWorker({
      name: `upgrade:${this.id}@${this.o.label}`,
      source: this.o.content.code,
      capabilities: upgradeCapabilities({
        id: this.id,
        callTool: (name, args) => this.o.callTool(name, args),
        emit: (name, payload) => this.o.emit(name, payload),
        status: (update) => this.setStatus(applyStatus(this.status, update, local)),
        storage: this.o.storage,
        rate: this.o.limits.rate,
      }),
      network: this.o.network,
      limits: { callTimeoutMs: this.o.limits.initTimeoutMs, handlerTimeoutMs: this.o.limits.handlerTimeoutMs },
      onLog: (e) => this.log(`${e.level === 'log' || e.level === 'info' ? '' : `${e.level}: `}${e.text}`),
      onRestart: (e) => this.restarted(e.reason, e.error.message),
      onStop: (e) => {
        if (e.reason === 'handler-timeout' && !this.stopping) this.o.onBroken?.(this.timedOut('HANDLER_TIMEOUT', e.error.message.replace(/^\[sandbox\] \S+: /, '')));
      },
    }).catch((e: unknown) => {
      const details = (e as SandboxError).details as { phase?: string } | undefined;
      if ((e as SandboxError).code === 'SANDBOX_TIMEOUT' && details?.phase === 'load') throw this.timedOut('LOAD_TIMEOUT', `its module did not finish loading (its top level) within ${this.o.limits.initTimeoutMs} ms`);
      throw e;
    });
    if (this.o.workers) this.o.workers.alive++;
    this.worker = worker;
    return worker.describe();
  }

  /**
   * Runs `init(ctx)`; rejects with the agent's error, or `INIT_TIMEOUT` past `initTimeoutMs` —
   * then its worker is stopped, not restarted: an init that ran away would only run away again.
   */
  async init(): Promise<void> {
    try {
      await this.run(['init'], [], this.o.limits.initTimeoutMs, undefined, 'stop');
    } catch (e) {
      if ((e as SandboxError).code === 'SANDBOX_TIMEOUT') throw this.timedOut('INIT_TIMEOUT', `init(ctx) did not finish within ${this.o.limits.initTimeoutMs} ms`);
      throw e;
    }
    this.initialized = true;
  }

  /** Calls its tool `local` with `args`. Rejects with the agent's error (its own `code`, else its class), a timeout, or `UPGRADE_REPLACED` when it stopped meanwhile. */
  async call(local: string, args: Record<string, unknown>, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
    if (this.stopping) throw this.replaced();
    return this.run(['tools', local], [args], opts.timeoutMs ?? this.o.limits.callTimeoutMs, opts.signal);
  }

  /** Delivers the public events of `bus` to the worker until it stops. */
  listen(bus: Pick<EventSource, 'onAny'>): void {
    this.subscription = bus.onAny((r) => {
      // Only names its code listens to are cut down and sent (a tool call is an event: most are not).
      const e = this.worker && !this.stopping && this.worker.listens(r.type) ? publicEvent(r, this.id) : undefined;
      if (e) this.worker!.deliver(e.name, e.payload);
    });
  }

  /** Subscriptions held on the bus (0 or 1). */
  get subscriptions(): number {
    return this.subscription ? 1 : 0;
  }

  /**
   * Stops it: no new calls; those in flight may finish within the call limit (then they fail with
   * `UPGRADE_REPLACED`); `dispose()` runs within its limit; the worker ends. Never rejects.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.subscription?.dispose();
    this.subscription = undefined;
    const worker = this.worker;
    if (!worker) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => (timer = setTimeout(r, this.o.limits.drainTimeoutMs)))]);
    clearTimeout(timer);
    await worker.call(['dispose'], [], { timeoutMs: this.o.limits.disposeTimeoutMs }).catch(() => undefined);
    this.worker = undefined;
    await worker.terminate().catch(() => undefined);
    if (this.o.workers) this.o.workers.alive--;
  }

  private async run(path: string[], args: unknown[], timeoutMs: number, signal?: AbortSignal, onTimeout?: 'stop'): Promise<unknown> {
    const worker = this.worker;
    if (!worker) throw this.replaced();
    const call = worker.call(path, args, { timeoutMs, ...(signal ? { signal } : {}), ...(onTimeout ? { onTimeout } : {}) });
    this.inFlight.add(call);
    try {
      return await call;
    } catch (e) {
      if (e instanceof AgentCodeError) throw agentError(e);
      if ((e as { code?: string }).code === 'SANDBOX_TERMINATED') throw this.replaced();
      // Stopped by a handler past its limit: every call says so, not that it was replaced.
      if ((e as { code?: string }).code === 'SANDBOX_HANDLER_TIMEOUT') throw this.timedOut('HANDLER_TIMEOUT', (e as Error).message.replace(/^\[sandbox\] \S+: /, ''));
      throw e;
    } finally {
      this.inFlight.delete(call);
    }
  }

  /** A limit its own code ran past (`code` one of {@link TIMEOUT_CODES}); `what` says which. */
  private timedOut(code: string, what: string): ArmatureError {
    return new ArmatureError(code, `[made-upgrades] ${this.id} ${this.o.label}: ${what}`, {
      hint: 'An endless loop never finishes: keep init and event handlers short, and put long work in a tool.',
      details: { id: this.id, version: this.o.label },
    });
  }

  private replaced(): ArmatureError {
    return new ArmatureError('UPGRADE_REPLACED', `[made-upgrades] ${this.id} ${this.o.label} stopped (it was replaced, retired or reloaded) while this call ran`, { hint: 'Call the tool again: the version in force answers.' });
  }

  private setStatus(s: UpgradeStatus): void {
    this.status = s;
    this.o.onStatus?.(s);
  }

  private log(text: string): void {
    this.setStatus({ ...this.status, log: appendLog(this.status.log, [text]) });
    this.o.onLog?.(`[upgrade:${this.id}] ${text}`);
  }

  /** The worker restarted (its state is gone): run `init` again, unless it keeps restarting. */
  private restarted(reason: string, message: string): void {
    // Before its first init finished, the init's own failure says what went wrong: no second one.
    if (this.stopping || !this.initialized) return;
    const now = Date.now();
    this.restarts = [...this.restarts.filter((t) => now - t < RESTART_WINDOW_MS), now];
    this.log(`worker restarted (${reason}): ${message}; its state was lost, init runs again`);
    if (this.restarts.length > MAX_RESTARTS) {
      this.o.onBroken?.(new ArmatureError('UPGRADE_BROKEN', `[made-upgrades] ${this.id} ${this.o.label} restarted ${this.restarts.length} times within a minute; it was stopped`, { hint: 'Fix what makes it time out or crash, and update it.' }));
      return;
    }
    this.init().catch((e) => {
      const timedOut = TIMEOUT_CODES.has((e as ArmatureError).code);
      this.o.onBroken?.(new ArmatureError(timedOut ? (e as ArmatureError).code : 'UPGRADE_BROKEN', `[made-upgrades] ${this.id} ${this.o.label}: init failed after a restart: ${(e as Error).message}`, { hint: 'Fix init and update the upgrade.' }));
    });
  }
}

/** The error a call answers when the agent's code threw: its own `code` when it set one, else its class (`TypeError`). */
export function agentError(e: AgentCodeError): ArmatureError {
  const code = e.agentCode && /^[A-Za-z][\w.-]{0,63}$/.test(e.agentCode) ? e.agentCode : e.agentName && /^[A-Za-z_$][\w$]{0,63}$/.test(e.agentName) ? e.agentName : 'AGENT_ERROR';
  return new ArmatureError(code, code === e.agentName ? `${e.agentName}: ${e.message}` : e.message, { details: { stack: e.stack, worker: e.worker } });
}
