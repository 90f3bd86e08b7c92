/**
 * One run of user code on a started worker: the timeout, the interrupt signals (repeated, since
 * single ones get lost), the grace period after which a worker that ignores them is replaced, and
 * the shape of the result — which never throws.
 */
import type { ExecuteValue, HeapFull, PythonErrorInfo } from '../protocol/protocol.ts';
import { timerMs } from '../../../src/kernel/bounded.ts';
import { hintFor } from '../protocol/hints.ts';
import { secretId } from '../protocol/ids.ts';
import { joinOutput } from './output-drain.ts';
import type { ResolvedOptions } from './runtime-options.ts';
import type { ExecuteResult, RuntimeHost } from './runtime-types.ts';
import type { WorkerSession } from './worker-session.ts';
import type { WorkerSupervisor } from './worker-supervisor.ts';
import { INTERRUPT_RUNNING, INTERRUPT_SIGNAL } from '../protocol/interrupt-buffer.ts';
import { InterruptWatch } from './interrupt-watch.ts';

/** Runs code one run at a time (the caller serializes) and can interrupt the active run. */
export class RunExecutor {
  /** Runs finished, whatever their outcome. */
  executions = 0;
  private active: { signal(): void } | undefined;

  constructor(
    private readonly o: ResolvedOptions,
    private readonly emit: RuntimeHost['emit'],
    private readonly supervisor: WorkerSupervisor,
  ) {}

  /** Interrupts the active run, if any (KeyboardInterrupt; a restart if Python does not stop). */
  interrupt(): void {
    this.active?.signal();
  }

  /** A failed result of run `runId` that started at `t0`, with its output so far and a hint. */
  errorResult(runId: string, error: PythonErrorInfo, t0: number, out?: { stdout: string[]; stderr: string[] }, hint?: string): ExecuteResult {
    const h = hint ?? hintFor(error);
    const max = this.o.maxChars;
    const base = { ok: false as const, error, stdout: joinOutput(out?.stdout, max), stderr: joinOutput(out?.stderr, max), executionTime: performance.now() - t0, runId };
    return h ? { ...base, hint: h } : base;
  }

  /** Runs `code` on a started worker; emits `python:started` and `python:finished`. */
  async run(l: WorkerSession, code: string, runId: string, timeoutMs: number, abort?: AbortSignal): Promise<ExecuteResult> {
    const { o, supervisor } = this;
    const id = secretId('run');
    const out = l.output.track(id, runId);
    supervisor.setStatus('busy');
    this.emit('python:started', { runId });
    const t0 = performance.now();
    let timedOut = false;
    let restarted = false;
    let signalTimer: ReturnType<typeof setInterval> | undefined;
    const stopSignals = () => {
      clearInterval(signalTimer);
      signalTimer = undefined;
    };
    let spare: Promise<WorkerSession> | undefined;
    const replace = () => {
      restarted = true;
      stopSignals();
      const next = spare;
      spare = undefined;
      void supervisor.replace(next).catch(() => undefined);
    };
    const signal = () => {
      if (signalTimer || restarted) return;
      const buffer = l.interrupt;
      // Without shared memory there is no interrupt buffer: the worker is replaced at once.
      if (!buffer) return replace();
      // Most interrupts work within milliseconds; when one does not, the replacement is half-ready.
      if (o.prestart) {
        spare = supervisor.start();
        spare.then((s) => s.ready).catch(() => undefined);
      }
      const watch = new InterruptWatch(buffer, o.interruptGraceMs, o.resignalMs);
      signalTimer = setInterval(() => {
        const verdict = watch.tick(performance.now());
        if (verdict === 'stop') stopSignals();
        else if (verdict === 'replace') replace();
      }, o.resignalMs);
      watch.send(performance.now());
    };
    this.active = { signal };
    const timeout = setTimeout(() => {
      timedOut = true;
      signal();
    }, timerMs(timeoutMs));
    abort?.addEventListener('abort', signal, { once: true });
    // Running from now on, as far as an interrupt is concerned: one sent before the worker starts
    // the run is not taken for a run that is over (the worker clears the word once it is).
    if (l.interrupt) Atomics.store(l.interrupt, INTERRUPT_RUNNING, 1);
    const res = await l.request<ExecuteValue>({ type: 'execute', id, runId, code });
    abort?.removeEventListener('abort', signal);
    clearTimeout(timeout);
    stopSignals();
    // The interrupt worked: the prepared replacement is not needed.
    supervisor.discard(spare);
    spare = undefined;
    this.active = undefined;
    l.output.untrack(id);
    if (l.interrupt) Atomics.store(l.interrupt, INTERRUPT_SIGNAL, 0);
    this.executions++;
    let result: ExecuteResult;
    const full = res.ok ? (res.value as ExecuteValue).heapFull : res.heapFull;
    if (res.ok) {
      const value = res.value as ExecuteValue;
      supervisor.memoryBytes = value.memoryBytes ?? supervisor.memoryBytes;
      result = { ok: true, value: value.value, stdout: joinOutput(out.stdout, o.maxChars), stderr: joinOutput(out.stderr, o.maxChars), executionTime: performance.now() - t0, runId };
    } else if (timedOut) {
      const error: PythonErrorInfo = {
        type: 'TimeoutError',
        message: `the run did not finish within ${timeoutMs} ms`,
        traceback: res.error.type === 'KeyboardInterrupt' ? res.error.traceback : '',
      };
      const hint = restarted
        ? `Python did not stop when interrupted (a loop inside C code or a long sleep), so the runtime was restarted: globals, imports and installed packages were lost. Make the work smaller or raise timeout_ms.`
        : `The run was interrupted after ${timeoutMs} ms; globals survived. Make the work smaller or raise timeout_ms.`;
      result = this.errorResult(runId, error, t0, out, hint);
    } else if (restarted || res.error.type === 'WorkerRestarted') {
      result = this.errorResult(runId, { type: 'KeyboardInterrupt', message: 'interrupted; Python did not stop, so the runtime was restarted', traceback: '' }, t0, out, 'Globals, imports and installed packages were lost in the restart.');
    } else {
      const fatalHint =
        res.fatal && res.error.type !== 'WorkerCrashed' ? `${hintFor(res.error) ?? ''} The Python runtime failed fatally and was restarted: globals were lost.`.trim() : undefined;
      result = this.errorResult(runId, res.error, t0, out, fatalHint);
      if (res.fatal) void supervisor.replace().catch(() => undefined);
    }
    if (full && !(!res.ok && res.fatal) && !restarted) {
      // The interpreter is usable for tiny runs only: replace it now, before the next run.
      result.notice = heapNotice(full);
      void supervisor.replace().catch(() => undefined);
    }
    if (!result.ok) supervisor.lastError = result.error;
    this.emit('python:finished', result.ok ? { runId, ok: true, executionTime: result.executionTime } : { runId, ok: false, executionTime: result.executionTime, errorType: result.error.type });
    if (supervisor.live === l && !l.dead) supervisor.setStatus('ready');
    return result;
  }
}

/** What a caller is told when a run left Python's heap too full for real work. */
export function heapNotice(full: HeapFull): string {
  const mib = (n: number) => Math.round(n / (1024 * 1024));
  return `This run left Python's heap nearly full (${mib(full.usedBytes)} of ${mib(full.limitBytes)} MiB in use), which would make later runs fail with MemoryError: the runtime was restarted, and globals, imports and installed packages were lost. Keep less in globals (del what you no longer need), or raise maxHeapMb.`;
}
