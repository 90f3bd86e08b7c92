/**
 * The host's connection to the confined child of `process` isolation: starts it (and a new one
 * after a crash), calls the runtime's methods in it, and validates everything it sends — its
 * events may only name the run in flight, its requests (`call_tool`, `fetch`, snapshots) go to the
 * host's own answerers. The child's crash (out of memory, an exit, a protocol violation) fails
 * what was in flight with `WorkerCrashed`; the next call starts a new child.
 *
 * No Node module is imported here at the top: browsers load this file (and never call it).
 */
import { timerMs } from '../../../src/kernel/bounded.ts';
import type { PythonStatus } from '../../../src/contracts/python-events.ts';
import type { TransportExit } from '../../../src/sandbox/transport.ts';
import { LoopSpinner } from '../../../src/bridge/loop-spinner.ts';
import { ToolPipeReader } from '../../../src/bridge/tool-pipe.ts';
import { directWriter, type ChildCallAnswerer } from './process-calls.ts';
import type { Answer, ChildLink } from './process-child-link.ts';
import { childLaunch } from './process-paths.ts';
import { FromChildSchema, type ChildOptions, type FromChild, type Method, type ToChild } from '../protocol/process-protocol.ts';
import { answerCache } from './process-snapshots.ts';
import { nextId } from '../protocol/ids.ts';
import { runtimeDisposed, runtimeDisposedError } from '../protocol/hints.ts';
import { parseMessage, type PythonErrorInfo } from '../protocol/protocol.ts';
import type { ResolvedOptions } from '../host/runtime-options.ts';
import type { RuntimeHost, RuntimeState } from '../host/runtime-types.ts';

/** Warnings of one child printed at most. */
const MAX_CHILD_WARNINGS = 20;

/** An error carrying the PythonErrorInfo to report. */
type InfoError = Error & { info: PythonErrorInfo };

const notReady = (message: string): PythonErrorInfo => ({ type: 'RuntimeNotReady', message, traceback: '' });

/** The connection: the current child, its state as last reported, and the calls into it. */
export class ChildConnection {
  status: PythonStatus = 'idle';
  lastError: PythonErrorInfo | undefined;
  /** The state the child last reported (its own worker restarts included). */
  childState: RuntimeState = { status: 'idle', packages: [], executions: 0, restarts: 0 };
  /** Children replaced after a crash (the child's own worker restarts are counted in its state). */
  replaced = 0;
  disposed = false;
  /** The Python modules a new child installs before user code. */
  modules: { path: string; source: string }[];
  private starts = 0;
  private link: Promise<ChildLink> | undefined;
  /**
   * Keeps this event loop awake for `requestPollMs` after a call is sent: small runs are answered
   * within that, and a sleeping loop costs more to wake than they take (see `LoopSpinner`).
   */
  private readonly spinner: LoopSpinner;
  /** The children's snapshot cache operations under way (`dispose` waits for them, as for the thread's writes). */
  private cacheWork: Promise<void> = Promise.resolve();
  private readonly maxSendBytes: number;

  constructor(
    private readonly o: ResolvedOptions,
    private readonly host: RuntimeHost,
    private readonly calls: ChildCallAnswerer,
  ) {
    this.modules = o.modules?.() ?? [];
    this.spinner = new LoopSpinner(o.requestPollMs);
    this.maxSendBytes = Math.max(2 * o.maxToolAnswerBytes, o.maxSyncBytes) + 1024 * 1024;
  }

  /** The child started most recently, if any (it may be starting, or dead). */
  current(): Promise<ChildLink> | undefined {
    return this.link;
  }

  setStatus(next: PythonStatus, message?: string): void {
    if (this.status === next) return;
    this.status = next;
    this.host.emit('python:state', message ? { status: next, message } : { status: next });
  }

  /** Sends `msg` to the child behind `l`, unless it is dead. Throws when it is too large or not serializable. */
  post(l: ChildLink, msg: ToChild): void {
    if (!l.dead) l.child.post(msg, this.maxSendBytes, `the ${msg.type} message`);
  }

  /** Declares the child behind `l` dead: what was in flight fails, and it is killed. */
  died(l: ChildLink, exit: TransportExit): void {
    if (l.dead) return;
    l.dead = true;
    // A start waiting for its hello stops waiting: the child is gone (see `start`).
    l.sayHello();
    l.calls.clear();
    l.sleepers.clear();
    clearTimeout(l.runTimer);
    const error: PythonErrorInfo = {
      type: 'WorkerCrashed',
      message: exit.reason === 'memory' ? `the Python process ran out of memory: ${exit.detail}` : `the Python process stopped: ${exit.detail}`,
      traceback: '',
    };
    this.lastError = error;
    for (const resolve of l.pending.values()) resolve({ ok: false, error });
    l.pending.clear();
    if (l.current) this.host.emit('python:finished', { runId: l.current, ok: false, executionTime: 0, errorType: 'WorkerCrashed' });
    l.current = undefined;
    if (this.disposed) return;
    this.setStatus('error', error.message);
    void l.child.terminate().catch(() => undefined);
  }

  /** The live child, started when there is none (a crashed one is replaced here). */
  async live(): Promise<ChildLink> {
    if (this.disposed) throw runtimeDisposedError();
    const current = this.link;
    if (current) {
      const l = await current.catch(() => undefined);
      if (l && !l.dead) return l;
      if (this.link === current) this.link = undefined;
    }
    this.link ??= this.start();
    const started = this.link;
    try {
      return await started;
    } catch (e) {
      if (this.link === started) this.link = undefined;
      throw e;
    }
  }

  /**
   * Calls `method` in the child. `args` may be a function, evaluated as the call is sent; `onPosted`
   * runs once it is sent (what it sends arrives after the call).
   */
  async rpc(method: Method, args: unknown[] | (() => unknown[]), watchdogMs?: number, onPosted?: (l: ChildLink) => void): Promise<Answer> {
    let l: ChildLink;
    try {
      l = await this.live();
    } catch (e) {
      return { ok: false, error: (e as { info?: PythonErrorInfo }).info ?? notReady(String((e as Error).message ?? e)) };
    }
    const id = nextId('c');
    return new Promise<Answer>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // While the host waits for an answer the child holds the event loop open (else it does not).
      if (l.pending.size === 0) l.child.keepAlive(true);
      l.pending.set(id, (answer) => {
        clearTimeout(timer);
        if (l.pending.size === 0 && !l.dead) l.child.keepAlive(false);
        resolve(answer);
      });
      // A child that stops answering (it should not: Python runs in its worker) is replaced.
      if (watchdogMs !== undefined) timer = setTimeout(() => this.died(l, { reason: 'exit', detail: `it did not answer ${method} within ${watchdogMs} ms` }), timerMs(watchdogMs));
      try {
        this.post(l, { type: 'call', id, method, args: typeof args === 'function' ? args() : args });
        this.spinner.hold();
      } catch (e) {
        l.pending.delete(id);
        clearTimeout(timer);
        resolve({ ok: false, error: { type: 'ValueError', message: `[${method}] ${(e as Error).message}`, traceback: '' } });
        return;
      }
      onPosted?.(l);
    });
  }

  /** Stops the child for good (after the snapshot writes under way). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    const current = this.link;
    this.disposed = true;
    this.link = undefined;
    const l = await current?.catch(() => undefined);
    if (l && !l.dead) {
      l.dead = true;
      // A run cut short by the dispose never reports its end: its clock would keep the process alive.
      clearTimeout(l.runTimer);
      for (const resolve of l.pending.values()) resolve({ ok: false, error: runtimeDisposed() });
      l.pending.clear();
      await l.child.terminate().catch(() => undefined);
    }
    await this.cacheWork;
    this.setStatus('idle');
  }

  private async start(): Promise<ChildLink> {
    const { o } = this;
    const { startPythonChild } = await import('./process-link.ts');
    const { launch, packageDir, snapshotFolder } = await childLaunch(o);
    const { child, workerUrl, indexURL } = await startPythonChild(launch);
    let sayHello!: () => void;
    const pipe = child.pipes[0]!;
    const l: ChildLink = {
      child,
      indexURL,
      pending: new Map(),
      dead: false,
      queued: new Map(),
      warnings: 0,
      hello: new Promise((r) => (sayHello = r)),
      sayHello: () => sayHello(),
      calls: new Set(),
      sleepers: new Set(),
      writeFrame: await directWriter(pipe),
    };
    child.onMessage((raw) => this.receive(l, raw));
    const requests = new ToolPipeReader(o.maxToolArgBytes + 64 * 1024, {
      request: (text) => void this.calls.answerPipe(l, text),
      sleeping: (callId) => this.calls.sleeping(l, callId),
      oversize: (bytes) => this.died(l, { reason: 'oversize', detail: `it sent a call_tool request of ${bytes} bytes; the limit is ${o.maxToolArgBytes}` }),
    });
    pipe.on('data', (chunk: Uint8Array) => requests.push(chunk));
    child.onExit((exit) => this.died(l, exit));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), o.initTimeoutMs)));
    const said = await Promise.race([l.hello.then(() => 'ok' as const), late]);
    clearTimeout(timer);
    if (said === 'late' || l.dead) {
      const why = l.dead ? (this.lastError?.message ?? 'the Python process stopped before it started') : `the Python process did not start within ${o.initTimeoutMs} ms`;
      this.died(l, { reason: 'error', detail: 'it did not start' });
      throw Object.assign(new Error('the Python process did not start'), { info: notReady(why) }) as InfoError;
    }
    const options: ChildOptions = {
      indexURL,
      packageIndexURL: o.packageIndexURL,
      workerUrl,
      defaultTimeoutMs: o.defaultTimeoutMs,
      interruptGraceMs: o.interruptGraceMs,
      resignalMs: o.resignalMs,
      maxSyncBytes: o.maxSyncBytes,
      stdoutFlushMs: o.stdoutFlushMs,
      maxResultOutputChars: o.maxChars,
      initTimeoutMs: o.initTimeoutMs,
      prestartOnTimeout: o.prestart,
      bridgePollMs: o.bridgePollMs,
      requestPollMs: o.requestPollMs,
      fastExecute: o.fastExecute,
      snapshot: o.snapshot !== 'off',
      maxResultBytes: o.maxResultBytes,
      maxToolArgBytes: o.maxToolArgBytes,
      maxToolAnswerBytes: o.maxToolAnswerBytes,
      maxHeapMb: o.heapLimitBytes / (1024 * 1024),
      network: o.network,
      transport: o.transport,
    };
    if (packageDir) options.packageCacheDir = packageDir;
    if (snapshotFolder) options.snapshotFolder = snapshotFolder;
    l.startedWith = this.modules;
    this.post(l, { type: 'start', id: 'start', options, modules: this.modules });
    if (this.starts++ > 0) this.replaced++;
    return l;
  }

  private receive(l: ChildLink, raw: unknown): void {
    if (l.dead) return;
    const parsed = parseMessage(FromChildSchema, raw);
    if (!parsed.ok) {
      this.lastError = { type: 'ProtocolError', message: `the Python process sent ${parsed.error}`, traceback: '' };
      const id = (raw as { type?: unknown; id?: unknown } | null)?.type === 'result' ? String((raw as { id: unknown }).id) : undefined;
      const resolve = id === undefined ? undefined : l.pending.get(id);
      if (resolve) {
        l.pending.delete(id!);
        resolve({ ok: false, error: this.lastError });
      }
      return;
    }
    const msg: FromChild = parsed.value;
    switch (msg.type) {
      case 'hello':
        return l.sayHello();
      case 'result': {
        const resolve = l.pending.get(msg.id);
        l.pending.delete(msg.id);
        if (l.pending.size === 0) this.spinner.release();
        if (msg.state) this.childState = msg.state;
        return resolve?.(msg.ok ? { ok: true, value: msg.value } : { ok: false, error: msg.error });
      }
      case 'state':
        this.childState = msg.state;
        return;
      case 'event':
        return this.relay(l, msg.event);
      case 'tool':
        return void this.calls.answerTool(l, msg);
      case 'bridge-call':
        return this.calls.observe?.(msg.call);
      case 'fetch':
        return void this.calls.answerFetch(l, msg);
      case 'cache': {
        const done = answerCache(this.o, msg)
          .then((answer) => {
            try {
              this.post(l, answer.ok ? { type: 'cache-result', id: msg.id, ok: true, value: answer.value } : { type: 'cache-result', id: msg.id, ok: false, message: answer.message });
            } catch (e) {
              this.post(l, { type: 'cache-result', id: msg.id, ok: false, message: String((e as Error)?.message ?? e) });
            }
          })
          .catch(() => undefined);
        this.cacheWork = this.cacheWork.then(() => done);
        return;
      }
      case 'warn':
        // Printed as the unconfined runtime prints its own; a child says only so much.
        if (l.warnings++ < MAX_CHILD_WARNINGS) console.warn(msg.message);
        return;
    }
  }

  /** Passes an event on when it is the child's to report: run events only for the run in flight. */
  private relay(l: ChildLink, event: Extract<FromChild, { type: 'event' }>['event']): void {
    switch (event.type) {
      case 'python:started': {
        const timeoutMs = l.queued.get(event.payload.runId);
        if (timeoutMs === undefined || l.current) return;
        l.current = event.payload.runId;
        // The child's clock for the run starts now; a call_tool the worker is blocked on ends when it runs out.
        l.runTimer = setTimeout(() => this.calls.cutCalls(l), timerMs(timeoutMs));
        break;
      }
      case 'python:stdout':
      case 'python:stderr':
        if (event.payload.runId !== l.current && event.payload.runId !== 'init') return;
        break;
      case 'python:finished':
        if (event.payload.runId !== l.current) return;
        l.current = undefined;
        clearTimeout(l.runTimer);
        break;
      case 'python:state':
        this.status = event.payload.status;
        if (this.status === 'ready') this.lastError = undefined;
        break;
    }
    this.host.emit(event.type, event.payload as never);
  }
}
