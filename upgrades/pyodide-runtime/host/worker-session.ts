/**
 * One started worker, host side: spawns it, hands it its shared buffers, routes what it sends
 * (progress, output, tool calls, responses), matches requests to responses, and notices when it
 * dies. Replacing a worker is the supervisor's (`worker-supervisor.ts`); a session only ever ends.
 */
import type { RuntimeHost } from './runtime-types.ts';
import { parseWorkerMessage, type InitResult, type PythonErrorInfo, type ResponseMessage, type Transport } from '../protocol/protocol.ts';
import { secretId } from '../protocol/ids.ts';
import { INTERRUPT_BUFFER_BYTES } from '../protocol/interrupt-buffer.ts';
import { OutputDrain } from './output-drain.ts';
import type { SnapshotStore } from '../snapshot/snapshot-store.ts';
import { canShareMemory, chooseTransport, packageCacheDirFor, type ResolvedOptions } from './runtime-options.ts';
import type { AnswerTarget, ToolCallAnswerer } from './tool-calls.ts';
import { defaultIndexURL, spawnWorker, type WorkerHandle } from './worker-handle.ts';
import { LoopSpinner } from '../../../src/bridge/loop-spinner.ts';
import { createOutputRing } from '../../../src/bridge/output-ring.ts';
import { RequestPoller } from '../../../src/bridge/request-poller.ts';
import { createSyncChannelBuffers, SyncChannelHost } from '../../../src/bridge/sync-channel.ts';
import { toWireError } from '../../../src/sandbox/agent-scope.ts';
import { policyFetch } from '../../../src/sandbox/network-policy.ts';

/** What a session reports to, and needs from, the runtime that started it. */
export interface SessionHooks {
  emit: RuntimeHost['emit'];
  toolCalls: ToolCallAnswerer;
  /** Which start-up snapshot the worker restores, and where one it makes is kept. */
  snapshots: SnapshotStore;
  /** The worker died (crashed, exited, or reported an uncaught error); its requests have failed. */
  onDeath(session: WorkerSession, why: string): void;
  /** The worker sent a message that does not follow the protocol. */
  onProtocolError(error: PythonErrorInfo): void;
}

/** A request as sent to the worker (the session fills in a missing `id`). */
export type SessionRequest = { type: string; id?: string; [k: string]: unknown };

/** A response, with `value` typed as the caller expects it. */
export type SessionResponse<T> = ResponseMessage & { value?: T };

/** One worker from spawn to death. */
export class WorkerSession implements AnswerTarget {
  /** Set once the worker is gone (or abandoned); requests then fail at once. */
  dead = false;
  /** Resolves when Python is up (the `init` response); rejects with `{ info }` when it cannot start. */
  ready: Promise<InitResult> = Promise.resolve(undefined as never);
  /** The Python modules its `init` installed (a later identical set is not written again). */
  startedWith: readonly { path: string; source: string }[] = [];
  /** The interrupt buffer Python polls, and the worker's running flag beside it (shared memory only; see `interrupt-watch.ts`). */
  readonly interrupt?: Int32Array;
  /** The `call_tool` channel and the poller watching its request slot (shared-memory transport). */
  readonly bridge?: { host: SyncChannelHost; poller: RequestPoller };
  /** Output of runs in flight and the ring's drain. */
  readonly output: OutputDrain;
  private readonly pending = new Map<string, (msg: ResponseMessage) => void>();
  /** Keeps this thread awake for a moment after each request, for its answer. */
  private readonly spinner: LoopSpinner;

  private constructor(
    readonly worker: WorkerHandle,
    readonly transport: Transport,
    private readonly buffers: { interrupt?: SharedArrayBuffer; ring?: SharedArrayBuffer; channel?: ReturnType<typeof createSyncChannelBuffers> },
    private readonly o: ResolvedOptions,
    private readonly hooks: SessionHooks,
  ) {
    if (buffers.interrupt) this.interrupt = new Int32Array(buffers.interrupt);
    this.spinner = new LoopSpinner(o.requestPollMs);
    this.output = new OutputDrain({ emit: hooks.emit, maxChars: o.maxChars, flushMs: o.stdoutFlushMs, ring: buffers.ring, alive: () => !this.dead });
    if (buffers.channel) {
      const host = new SyncChannelHost(buffers.channel);
      this.bridge = { host, poller: new RequestPoller(host, (r) => hooks.toolCalls.answerSlot(this, r), { windowMs: o.bridgePollMs }) };
    }
  }

  /**
   * Spawns a worker and starts Python in it with `modules` installed. Resolves once the worker
   * exists; `ready` tells when (and whether) Python is up.
   */
  static async start(o: ResolvedOptions, hooks: SessionHooks, modules: { path: string; source: string }[]): Promise<WorkerSession> {
    const transport = chooseTransport(o.transport);
    const worker = await spawnWorker(o.workerUrl);
    const share = canShareMemory();
    const session = new WorkerSession(
      worker,
      transport,
      {
        interrupt: share ? new SharedArrayBuffer(INTERRUPT_BUFFER_BYTES) : undefined,
        ring: share ? createOutputRing() : undefined,
        channel: transport === 'shared-memory' ? createSyncChannelBuffers() : undefined,
      },
      o,
      hooks,
    );
    worker.onError((e) => session.die(`the Python worker failed: ${e.message}`));
    worker.onExit((code, why) => session.die(why ?? `the Python worker exited (code ${code})`));
    worker.onMessage((raw) => session.receive(raw));
    session.startedWith = modules;
    session.ready = session.init(modules);
    // Awaited by the supervisor; this keeps a worker that dies unobserved from raising unhandledRejection.
    session.ready.catch(() => undefined);
    return session;
  }

  /** Sends `msg` and resolves with its response; never rejects (a dead worker answers `RuntimeNotReady`). */
  request<T = unknown>(msg: SessionRequest, transfer?: Transferable[]): Promise<SessionResponse<T>> {
    const id = msg.id ?? secretId(msg.type);
    return new Promise((resolve) => {
      if (this.dead) return resolve({ type: 'response', id, ok: false, error: { type: 'RuntimeNotReady', message: 'the Python worker has stopped', traceback: '' } });
      this.pending.set(id, resolve as (msg: ResponseMessage) => void);
      this.worker.post({ ...msg, id }, transfer);
      this.spinner.hold();
    });
  }

  /**
   * Marks the worker as gone: its pending requests end with `error` (if given), its bridge stops
   * polling and its output timer stops. Terminating the worker is the caller's.
   */
  retire(error?: PythonErrorInfo, fatal = false): void {
    this.dead = true;
    this.spinner.release();
    this.bridge?.poller.dispose();
    this.output.stop();
    if (!error) return;
    for (const [id, resolve] of this.pending) resolve(fatal ? { type: 'response', id, ok: false, error, fatal } : { type: 'response', id, ok: false, error });
    this.pending.clear();
  }

  private die(why: string): void {
    if (this.dead) return;
    // What the worker printed before it died is still in the ring: show it.
    this.output.drain(true);
    this.retire({ type: 'WorkerCrashed', message: why, traceback: '' }, true);
    // A browser worker keeps running after an uncaught error, in an unknown state: stop it
    // (in Node the thread has already ended; terminating again is harmless).
    void this.worker.terminate().catch(() => undefined);
    this.hooks.onDeath(this, why);
  }

  private receive(raw: unknown): void {
    const parsed = parseWorkerMessage(raw);
    if (!parsed.ok) {
      const error: PythonErrorInfo = { type: 'ProtocolError', message: parsed.error, traceback: '' };
      this.hooks.onProtocolError(error);
      // A malformed answer still ends the request it answers, instead of leaving it waiting.
      const id = (raw as { type?: unknown; id?: unknown } | null)?.type === 'response' ? String((raw as { id: unknown }).id) : undefined;
      const resolve = id === undefined ? undefined : this.pending.get(id);
      if (resolve) {
        this.pending.delete(id!);
        resolve({ type: 'response', id: id!, ok: false, error });
      }
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'progress':
        this.hooks.emit('python:progress', msg.message ? { stage: msg.stage, percent: msg.percent, message: msg.message } : { stage: msg.stage, percent: msg.percent });
        return;
      case 'stream':
        this.output.deliver(msg.id, msg.runId, msg.stream, msg.chunk);
        return;
      case 'output-ready':
        this.output.schedule(msg.full === true);
        return;
      case 'tool-call':
        void this.hooks.toolCalls.answer(this, msg, this.transport);
        return;
      case 'fetch':
        void this.answerFetch(msg);
        return;
      case 'tool-call-ready': {
        // The poller may have taken it already; the slot hands each request out once.
        const request = this.bridge?.host.takeRequest();
        if (request) this.hooks.toolCalls.answerSlot(this, request);
        return;
      }
      case 'response': {
        // Everything the request printed was written before its answer: take it first.
        this.output.drain(true);
        const resolve = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        // Nothing more to wait for: let the thread sleep again.
        if (!this.pending.size) this.spinner.release();
        resolve?.(msg);
        return;
      }
    }
  }

  /** Performs a fetch Python asked for, under the network policy (checked again here), and answers it. */
  private async answerFetch(msg: { id: string; fetchId: number; url: string; method: string; headers: [string, string][]; body?: string | Uint8Array }): Promise<void> {
    const { id, fetchId, ...req } = msg;
    const perform =
      this.o.fetcher ??
      ((r: typeof req) => policyFetch(this.o.network, { type: 'fetch', id: 'py', ...r }, { maxBytes: this.o.maxToolAnswerBytes, timeoutMs: this.o.defaultTimeoutMs, owner: 'Python' }));
    let answer;
    try {
      answer = { type: 'fetch-result', id, fetchId, ok: true, response: await perform(req) };
    } catch (e) {
      const w = toWireError(e);
      answer = { type: 'fetch-result', id, fetchId, ok: false, error: { name: w.name, message: w.message, ...(w.code ? { code: w.code } : {}) } };
    }
    if (!this.dead) this.worker.post(answer);
  }

  private async init(modules: { path: string; source: string }[]): Promise<InitResult> {
    const o = this.o;
    const indexURL = o.indexURL ?? (await defaultIndexURL());
    const id = secretId('init');
    const timer = new Promise<ResponseMessage>((resolve) =>
      setTimeout(
        () => resolve({ type: 'response', id, ok: false, error: { type: 'TimeoutError', message: `Pyodide did not start within ${o.initTimeoutMs} ms`, traceback: '' } }),
        o.initTimeoutMs,
      ).unref?.(),
    );
    const plan = await this.hooks.snapshots.plan(indexURL);
    const snapshot = plan.bytes;
    const res = await Promise.race([
      this.request<InitResult>(
        {
          type: 'init',
          id,
          indexURL,
          packageIndexURL: o.packageIndexURL,
          packageCacheDir: await packageCacheDirFor(o),
          interrupt: this.buffers.interrupt,
          bridge: this.buffers.channel,
          transport: this.transport,
          stdoutFlushMs: o.stdoutFlushMs,
          output: this.buffers.ring,
          modules,
          snapshot,
          makeSnapshot: plan.make,
          fastExecute: o.fastExecute,
          pollMs: o.requestPollMs,
          limits: { resultBytes: o.maxResultBytes, toolArgBytes: o.maxToolArgBytes },
          heapLimitBytes: o.heapLimitBytes,
          ...(o.confine ? { confine: { network: o.network } } : {}),
          ...(o.toolPipe ? { toolPipe: o.toolPipe } : {}),
        },
        snapshot ? [snapshot.buffer as ArrayBuffer] : undefined,
      ),
      timer,
    ]);
    if (!res.ok) throw Object.assign(new Error(res.error.message), { info: res.error });
    const value = res.value as InitResult;
    await this.hooks.snapshots.settle(indexURL, plan, value);
    const { snapshot: _made, ...result } = value;
    return result;
  }
}
