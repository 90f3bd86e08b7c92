/**
 * The worker's life cycle: starts it once however many callers ask, replaces it when it is stuck,
 * crashed or asked to restart, and keeps the facts a state report needs (status, versions,
 * restarts, last error). Everything else about a worker is its session's (`worker-session.ts`).
 */
import type { PythonStatus } from '../../../src/contracts/python-events.ts';
import { runtimeDisposed, runtimeDisposedError } from '../protocol/hints.ts';
import type { InitResult, PythonErrorInfo } from '../protocol/protocol.ts';
import type { ResolvedOptions } from './runtime-options.ts';
import type { RuntimeHost } from './runtime-types.ts';
import type { ToolCallAnswerer } from './tool-calls.ts';
import { SnapshotStore } from '../snapshot/snapshot-store.ts';
import { WorkerSession } from './worker-session.ts';

/** What the supervisor needs from the runtime around it. */
export interface SupervisorHooks {
  emit: RuntimeHost['emit'];
  toolCalls: ToolCallAnswerer;
  /** The Python modules a new worker installs before user code. */
  modules(): { path: string; source: string }[];
  /** A new interpreter is up (first start or restart): state tied to the old one is stale. */
  onStarted(): void;
}

/** An error carrying the PythonErrorInfo to report (what `ensureLive` rejects with). */
export type InfoError = Error & { info?: PythonErrorInfo };

/** Owns the current worker session and its replacement. */
export class WorkerSupervisor {
  status: PythonStatus = 'idle';
  /** The current worker, once started (it may have died since: see `dead`). */
  live: WorkerSession | undefined;
  /** What the current interpreter reported when it started. */
  info: InitResult | undefined;
  restarts = 0;
  memoryBytes: number | undefined;
  lastError: PythonErrorInfo | undefined;
  disposed = false;
  private starting: Promise<WorkerSession> | undefined;
  private restartPending = false;
  private readonly snapshots: SnapshotStore;

  constructor(
    private readonly o: ResolvedOptions,
    private readonly hooks: SupervisorHooks,
  ) {
    this.snapshots = new SnapshotStore({ mode: o.snapshot, cache: o.snapshotCache });
  }

  /** Sets the status and emits `python:state` when it changes. */
  setStatus(next: PythonStatus, message?: string): void {
    if (this.status === next) return;
    this.status = next;
    this.hooks.emit('python:state', message ? { status: next, message } : { status: next });
  }

  /** Spawns a worker with the current modules (not adopted: see `ensureLive`). */
  start(): Promise<WorkerSession> {
    return WorkerSession.start(
      this.o,
      {
        emit: this.hooks.emit,
        toolCalls: this.hooks.toolCalls,
        snapshots: this.snapshots,
        onDeath: (session, why) => {
          if (this.live === session && !this.disposed && this.status !== 'restarting') {
            this.lastError = { type: 'WorkerCrashed', message: why, traceback: '' };
            this.setStatus('error', why);
          }
        },
        onProtocolError: (error) => {
          this.lastError = error;
        },
      },
      this.hooks.modules(),
    );
  }

  /** Stops a worker that was started but not adopted. */
  discard(prepared: Promise<WorkerSession> | undefined): void {
    void prepared?.then((s) => {
      s.retire();
      return s.worker.terminate();
    }).catch(() => undefined);
  }

  /**
   * Starts (or restarts) the worker once, however many callers ask at the same time.
   * `prepared` is a worker already being started (see `prestartOnTimeout`) to adopt instead.
   */
  ensureLive(prepared?: Promise<WorkerSession>): Promise<WorkerSession> {
    if (this.disposed) {
      this.discard(prepared);
      return Promise.reject(runtimeDisposedError());
    }
    const current = this.live;
    if (current && !current.dead) {
      this.discard(prepared);
      return current.ready.then(() => current);
    }
    if (this.starting) this.discard(prepared);
    this.starting ??= this.adopt(prepared).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async adopt(prepared: Promise<WorkerSession> | undefined): Promise<WorkerSession> {
    const wasRestart = this.restartPending || !!this.live;
    this.restartPending = false;
    this.setStatus(wasRestart ? 'restarting' : 'loading');
    const started = await (prepared ?? this.start());
    if (this.disposed) {
      // dispose() ran while the worker was being created: do not leave it running.
      started.retire();
      await started.worker.terminate().catch(() => undefined);
      throw runtimeDisposedError();
    }
    this.live = started;
    try {
      this.info = await started.ready;
    } catch (e) {
      this.lastError = (e as InfoError).info ?? { type: 'RuntimeError', message: String(e), traceback: '' };
      this.setStatus('error', this.lastError.message);
      this.live = undefined;
      await started.worker.terminate().catch(() => undefined);
      throw e;
    }
    if (wasRestart) this.restarts++;
    this.hooks.onStarted();
    const mem = await started.request<{ wasmHeapBytes: number | null }>({ type: 'memory' });
    if (mem.ok) this.memoryBytes = (mem.value as { wasmHeapBytes: number | null }).wasmHeapBytes ?? undefined;
    this.setStatus('ready');
    return started;
  }

  /** Terminates the current worker (its requests fail with `WorkerRestarted`) and starts another. */
  async replace(prepared?: Promise<WorkerSession>): Promise<void> {
    const old = this.live;
    this.setStatus('restarting');
    this.restartPending = true;
    this.live = undefined;
    if (old) {
      old.retire({ type: 'WorkerRestarted', message: 'the worker was restarted', traceback: '' }, true);
      await old.worker.terminate().catch(() => undefined);
    }
    await this.ensureLive(prepared);
  }

  /** Stops the worker for good (after a start-up snapshot being written is complete). */
  async dispose(): Promise<void> {
    this.disposed = true;
    const l = this.live;
    this.live = undefined;
    if (l) {
      l.retire(runtimeDisposed());
      await l.worker.terminate().catch(() => undefined);
    }
    await this.snapshots.flush();
    this.setStatus('idle');
  }
}
