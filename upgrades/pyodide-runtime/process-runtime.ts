/**
 * PyodideRuntime in `process` isolation, Node's default: the runtime itself (its worker thread,
 * interrupt buffer, `call_tool` slot and output ring) runs in a confined child process
 * (`process-child.ts`, started by `process-link.ts`), and this host-side object forwards the API
 * to it. The child is not trusted: everything it sends is validated (`process-protocol.ts`), its
 * events may only name the run in flight, its tool calls go through the host's handler (the
 * ToolRunner, with the persona's allow-list), its fetches through the host's policy, and files
 * come back only as the answer to a `syncWorkspace` the host asked for, within its byte limit.
 * The child's crash (out of memory, an exit) fails what was in flight and a new child starts.
 *
 * No Node module is imported here at the top: browsers load this file (and never call it).
 */
import { timerMs } from '../../src/kernel/bounded.ts';
import type { PythonStatus } from '../../src/kernel/events.ts';
import { toWireError } from '../../src/sandbox/agent-scope.ts';
import { policyFetch } from '../../src/sandbox/network-policy.ts';
import type { ConfinedChild } from '../../src/sandbox/confined-child.ts';
import type { TransportExit } from '../../src/sandbox/transport.ts';
import { MarshalTooLargeError, toAnswer } from '../../src/bridge/marshal.ts';
import { LoopSpinner } from '../../src/bridge/loop-spinner.ts';
import { answerFrame, ToolPipeReader } from '../../src/bridge/tool-pipe.ts';
import { parseToolJson } from '../../src/bridge/tool-request.ts';
import { TOOL_STATUS } from './python-prelude.ts';
import { z } from 'zod';
import { hintFor } from './hints.ts';
import { nextId } from './ids.ts';
import { FromChildSchema, StateSchema, type ChildOptions, type FromChild, type Method, type ToChild } from './process-protocol.ts';
import { PythonErrorSchema, ToolCallMessageSchema, parseMessage, type PackageInfo, type PythonErrorInfo } from './protocol.ts';
import { packageCacheDirFor, type ResolvedOptions } from './runtime-options.ts';
import type { BridgeCall, ExecuteResult, PyodideRuntimeApi, RuntimeHost, RuntimeState, SyncReport, ToolCallHandler } from './runtime-types.ts';
import { cycleError, cycleFailure, runInToolScope } from './tool-call-scope.ts';

/**
 * Start-up snapshots made by confined children when the host keeps none on disk (`snapshot:
 * 'memory'`, or no `snapshotCache`), by key: shared by the runtimes of this process.
 */
const childSnapshots = new Map<string, Uint8Array>();
/** The keys a child may use: those `snapshot-store.ts` makes. */
const SNAPSHOT_KEY = /^pyodide-[\w.+-]{1,40}-[0-9a-f]{8,64}\.snapshot$/;
/**
 * Appended to the key of a child's snapshot in the host's cache: a snapshot is code, and one a
 * child made (which the host cannot check) is only ever restored in children — never by an
 * unconfined runtime, whose cache clean-up (of `*.snapshot` keys) also leaves these alone.
 */
const CHILD_SUFFIX = '.confined';
/** Warnings of one child printed at most. */
const MAX_CHILD_WARNINGS = 20;
/** Largest snapshot a child may store (Pyodide's are ~20 MB). */
const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

const ExecuteResultSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown(), stdout: z.string(), stderr: z.string(), executionTime: z.number(), runId: z.string() }),
  z.object({ ok: z.literal(false), error: PythonErrorSchema, hint: z.string().optional(), stdout: z.string(), stderr: z.string(), executionTime: z.number(), runId: z.string() }),
]);
const InstallResultSchema = z.union([
  z.object({ ok: z.literal(true), installed: z.array(z.string().max(1000)).max(10_000) }),
  z.object({ ok: z.literal(false), error: PythonErrorSchema, hint: z.string().optional() }),
]);
const PackagesSchema = StateSchema.shape.packages;
const SyncAnswerSchema = z.object({
  report: z.object({
    direction: z.enum(['in', 'out', 'both']),
    in: z.object({ count: z.number(), bytes: z.number(), skipped: z.array(z.string()) }).optional(),
    out: z.object({ count: z.number(), bytes: z.number(), deleted: z.array(z.string()), skipped: z.array(z.string()) }).optional(),
  }),
  written: z.array(z.object({ path: z.string().max(1024), data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'a Uint8Array') })),
});

type Answer = { ok: true; value: unknown } | { ok: false; error: PythonErrorInfo };

/** One started child. */
interface Link {
  child: ConfinedChild;
  indexURL: string;
  pending: Map<string, (answer: Answer) => void>;
  dead: boolean;
  /** Run ids of `execute` calls sent and not answered, with their timeouts: the only runs the child may report on. */
  queued: Map<string, number>;
  /** The run the child reported started and not yet finished. */
  current?: string;
  /** Warnings the child sent (only the first {@link MAX_CHILD_WARNINGS} are printed). */
  warnings: number;
  /** Ends the current run's `call_tool`s at its timeout (the child interrupts Python then too). */
  runTimer?: ReturnType<typeof setTimeout>;
  /** When the child said hello (its channel is up). */
  hello: Promise<void>;
  sayHello(): void;
  /** `call_tool` requests from the worker's pipe being answered, by call id. */
  calls: Set<number>;
  /** Calls whose worker went to sleep waiting for the answer: it needs a wake-up. */
  sleepers: Set<number>;
  /** Writes a frame on the worker's pipe. */
  writeFrame(frame: Uint8Array): void;
}

/**
 * Creates the runtime of `process` isolation over the resolved options. `onToolCall` answers
 * `call_tool` (PythonTool sets it later with `setToolCallHandler`).
 */
export function createProcessRuntime(o: ResolvedOptions, onToolCall: ToolCallHandler | undefined, host: RuntimeHost): PyodideRuntimeApi {
  /** Identifies this runtime in tool-call scopes. */
  const self = {};
  let handler = onToolCall;
  let observe: ((call: BridgeCall) => void) | undefined;
  let modules = o.modules?.() ?? [];
  let childState: RuntimeState = { status: 'idle', packages: [], executions: 0, restarts: 0 };
  let status: PythonStatus = 'idle';
  let lastError: PythonErrorInfo | undefined;
  /** Children replaced after a crash (the child's own worker restarts are counted in its state). */
  let replaced = 0;
  let starts = 0;
  let link: Promise<Link> | undefined;
  let disposed = false;
  let seq = 0;
  /**
   * Keeps this event loop awake for `requestPollMs` after a call is sent: small runs are answered
   * within that, and a sleeping loop costs more to wake than they take (see `LoopSpinner`).
   */
  const spinner = new LoopSpinner(o.requestPollMs);
  /** The children's snapshot cache operations under way (`dispose` waits for them, as for the thread's writes). */
  let cacheWork: Promise<void> = Promise.resolve();

  const maxFrameBytes = Math.max(2 * o.maxResultBytes + 4 * o.maxChars, o.maxSyncBytes, 2 * o.maxToolArgBytes, 48 * 1024 * 1024) + 1024 * 1024;
  const maxSendBytes = Math.max(2 * o.maxToolAnswerBytes, o.maxSyncBytes) + 1024 * 1024;

  const setStatus = (next: PythonStatus, message?: string) => {
    if (status === next) return;
    status = next;
    host.emit('python:state', message ? { status: next, message } : { status: next });
  };
  const notReady = (message: string): PythonErrorInfo => ({ type: 'RuntimeNotReady', message, traceback: '' });
  const errorResult = (runId: string, error: PythonErrorInfo, t0: number, hint?: string): ExecuteResult => {
    const h = hint ?? hintFor(error);
    const base = { ok: false as const, error, stdout: '', stderr: '', executionTime: performance.now() - t0, runId };
    return h ? { ...base, hint: h } : base;
  };

  const post = (l: Link, msg: ToChild) => {
    if (!l.dead) l.child.post(msg, maxSendBytes, `the ${msg.type} message`);
  };

  const died = (l: Link, exit: TransportExit) => {
    if (l.dead) return;
    l.dead = true;
    l.calls.clear();
    l.sleepers.clear();
    clearTimeout(l.runTimer);
    const error: PythonErrorInfo = {
      type: 'WorkerCrashed',
      message: exit.reason === 'memory' ? `the Python process ran out of memory: ${exit.detail}` : `the Python process stopped: ${exit.detail}`,
      traceback: '',
    };
    lastError = error;
    for (const resolve of l.pending.values()) resolve({ ok: false, error });
    l.pending.clear();
    if (l.current) host.emit('python:finished', { runId: l.current, ok: false, executionTime: 0, errorType: 'WorkerCrashed' });
    l.current = undefined;
    if (disposed) return;
    setStatus('error', error.message);
    void l.child.terminate().catch(() => undefined);
  };

  const startLink = async (): Promise<Link> => {
    const { startPythonChild } = await import('./process-link.ts');
    const indexDir = o.indexURL ? await localDir(o.indexURL) : undefined;
    // A package index on disk (a mirror) is read by the child: read access to that folder only.
    const mirror = await localDir(o.packageIndexURL);
    // Packages downloaded by the child go to a folder of its own, the only one it may write:
    // never the one an unconfined runtime installs from.
    const packageDir = await childPackageDir(o);
    const { child, workerUrl, indexURL } = await startPythonChild({
      memoryMb: o.processMemoryMb,
      maxFrameBytes,
      indexDir,
      read: mirror ? [mirror] : [],
      write: packageDir ? [insideGrant(packageDir)] : [],
    });
    let sayHello!: () => void;
    const pipe = child.pipes[0]!;
    const l: Link = {
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
    child.onMessage((raw) => receive(l, raw));
    const requests = new ToolPipeReader(o.maxToolArgBytes + 64 * 1024, {
      request: (text) => void answerPipe(l, text),
      sleeping: (callId) => {
        // Answered already (the answer and this crossed): wake it now; else when answering.
        if (l.calls.has(callId)) l.sleepers.add(callId);
        else post(l, { type: 'wake', id: 'wake' });
      },
      oversize: (bytes) => died(l, { reason: 'oversize', detail: `it sent a call_tool request of ${bytes} bytes; the limit is ${o.maxToolArgBytes}` }),
    });
    pipe.on('data', (chunk: Uint8Array) => requests.push(chunk));
    child.onExit((exit) => died(l, exit));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), o.initTimeoutMs)));
    const said = await Promise.race([l.hello.then(() => 'ok' as const), late]);
    clearTimeout(timer);
    if (said === 'late' || l.dead) {
      died(l, { reason: 'error', detail: 'it did not start' });
      throw Object.assign(new Error('the Python process did not start'), { info: notReady(`the Python process did not start within ${o.initTimeoutMs} ms`) });
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
      network: o.network,
      transport: o.transport,
    };
    if (packageDir) options.packageCacheDir = packageDir;
    post(l, { type: 'start', id: 'start', options, modules });
    if (starts++ > 0) replaced++;
    return l;
  };

  /** The live child, started when there is none (a crashed one is replaced here). */
  const live = async (): Promise<Link> => {
    if (disposed) throw Object.assign(new Error('the runtime is disposed'), { info: notReady('the runtime is disposed') });
    const current = link;
    if (current) {
      const l = await current.catch(() => undefined);
      if (l && !l.dead) return l;
      if (link === current) link = undefined;
    }
    link ??= startLink();
    const started = link;
    try {
      return await started;
    } catch (e) {
      if (link === started) link = undefined;
      throw e;
    }
  };

  /**
   * Calls `method` in the child. `args` may be a function, evaluated as the call is sent; `onPosted`
   * runs once it is sent (what it sends arrives after the call).
   */
  const rpc = async (method: Method, args: unknown[] | (() => unknown[]), watchdogMs?: number, onPosted?: (l: Link) => void): Promise<Answer> => {
    let l: Link;
    try {
      l = await live();
    } catch (e) {
      return { ok: false, error: (e as { info?: PythonErrorInfo }).info ?? notReady(String((e as Error).message ?? e)) };
    }
    const id = `c${++seq}`;
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
      if (watchdogMs !== undefined) timer = setTimeout(() => died(l, { reason: 'exit', detail: `it did not answer ${method} within ${watchdogMs} ms` }), timerMs(watchdogMs));
      try {
        post(l, { type: 'call', id, method, args: typeof args === 'function' ? args() : args });
        spinner.hold();
      } catch (e) {
        l.pending.delete(id);
        clearTimeout(timer);
        resolve({ ok: false, error: { type: 'ValueError', message: `[${method}] ${(e as Error).message}`, traceback: '' } });
        return;
      }
      onPosted?.(l);
    });
  };

  const receive = (l: Link, raw: unknown) => {
    if (l.dead) return;
    const parsed = parseMessage(FromChildSchema, raw);
    if (!parsed.ok) {
      lastError = { type: 'ProtocolError', message: `the Python process sent ${parsed.error}`, traceback: '' };
      const id = (raw as { type?: unknown; id?: unknown } | null)?.type === 'result' ? String((raw as { id: unknown }).id) : undefined;
      const resolve = id === undefined ? undefined : l.pending.get(id);
      if (resolve) {
        l.pending.delete(id!);
        resolve({ ok: false, error: lastError });
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
        if (l.pending.size === 0) spinner.release();
        if (msg.state) childState = msg.state;
        return resolve?.(msg.ok ? { ok: true, value: msg.value } : { ok: false, error: msg.error });
      }
      case 'state':
        childState = msg.state;
        return;
      case 'event':
        return relay(l, msg.event);
      case 'tool':
        return void answerTool(l, msg);
      case 'bridge-call':
        return observe?.(msg.call);
      case 'fetch':
        return void answerFetch(l, msg);
      case 'cache': {
        const done = answerCache(l, msg);
        cacheWork = cacheWork.then(() => done).catch(() => undefined);
        return;
      }
      case 'warn':
        // Printed as the unconfined runtime prints its own; a child says only so much.
        if (l.warnings++ < MAX_CHILD_WARNINGS) console.warn(msg.message);
        return;
    }
  };

  /** Keeps the child's start-up snapshots: on disk in `persist` mode with a cache, else in memory. */
  const answerCache = async (l: Link, msg: Extract<FromChild, { type: 'cache' }>) => {
    const disk = o.snapshot === 'persist' ? o.snapshotCache : undefined;
    try {
      if (o.snapshot === 'off') throw new Error('start-up snapshots are off');
      let value: Uint8Array | string[] | undefined;
      if (msg.op === 'keys') {
        const keys = disk ? (await disk.keys()).filter((k) => k.endsWith(CHILD_SUFFIX)).map((k) => k.slice(0, -CHILD_SUFFIX.length)) : [...childSnapshots.keys()];
        value = keys.filter((k) => SNAPSHOT_KEY.test(k));
      } else {
        if (!SNAPSHOT_KEY.test(msg.key)) throw new Error(`${JSON.stringify(msg.key.slice(0, 80))} is not a start-up snapshot key`);
        const key = msg.key + CHILD_SUFFIX;
        if (msg.op === 'get') value = disk ? await disk.get(key) : childSnapshots.get(key)?.slice();
        else if (msg.op === 'delete') await (disk ? disk.delete(key) : childSnapshots.delete(key));
        else if (msg.bytes.byteLength > MAX_SNAPSHOT_BYTES) throw new Error(`a snapshot of ${msg.bytes.byteLength} bytes is over the ${MAX_SNAPSHOT_BYTES}-byte limit`);
        else if (disk) await disk.put(key, msg.bytes);
        else childSnapshots.set(key, msg.bytes);
      }
      post(l, { type: 'cache-result', id: msg.id, ok: true, value });
    } catch (e) {
      post(l, { type: 'cache-result', id: msg.id, ok: false, message: String((e as Error)?.message ?? e) });
    }
  };

  /** Passes an event on when it is the child's to report: run events only for the run in flight. */
  const relay = (l: Link, event: Extract<FromChild, { type: 'event' }>['event']) => {
    switch (event.type) {
      case 'python:started': {
        const timeoutMs = l.queued.get(event.payload.runId);
        if (timeoutMs === undefined || l.current) return;
        l.current = event.payload.runId;
        // The child's clock for the run starts now; a call_tool the worker is blocked on ends when it runs out.
        l.runTimer = setTimeout(() => cutCalls(l), timerMs(timeoutMs));
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
        status = event.payload.status;
        if (status === 'ready') lastError = undefined;
        break;
    }
    host.emit(event.type, event.payload as never);
  };

  const answerTool = async (l: Link, msg: Extract<FromChild, { type: 'tool' }>) => {
    let result: Awaited<ReturnType<ToolCallHandler>>;
    const h = handler;
    if (!h) result = { ok: false, error: { code: 'NO_TOOLS', message: 'no tools are connected to this Python runtime' } };
    else {
      const scope = { runtime: self, tool: clipped(msg.name), done: false };
      try {
        result = await runInToolScope(scope, () => h(msg.name, msg.args, msg.instance)).finally(() => (scope.done = true));
      } catch (e) {
        result = { ok: false, error: { code: 'TOOL_FAILED', message: String((e as Error)?.message ?? e) } };
      }
    }
    const plain = result.ok ? { ok: true as const, value: result.value } : result.hint ? { ok: false as const, error: { code: result.error.code, message: result.error.message }, hint: result.hint } : { ok: false as const, error: { code: result.error.code, message: result.error.message } };
    try {
      post(l, { type: 'tool-result', id: msg.id, result: plain });
    } catch (e) {
      post(l, { type: 'tool-result', id: msg.id, result: unsendable(clipped(msg.name), plain, e) });
    }
  };

  /**
   * After an answer, keeps this event loop turning for `bridgePollMs` (a task per turn, each turn
   * looking at the pipe without sleeping): Python usually calls again at once, and a sleeping loop
   * would have to be woken for it, which costs more than the call on virtual machines.
   */
  let hotUntil = 0;
  let spinning = false;
  const keepHot = () => {
    if (o.bridgePollMs <= 0) return;
    hotUntil = performance.now() + o.bridgePollMs;
    if (spinning) return;
    spinning = true;
    const turn = () => {
      if (performance.now() < hotUntil && !disposed) setImmediate(turn);
      else spinning = false;
    };
    setImmediate(turn);
  };

  /** Writes an answer frame on the worker's pipe, unless the call was cut short meanwhile. */
  const writeAnswer = (l: Link, callId: number, status: number, payload: Uint8Array): boolean => {
    if (l.dead || !l.calls.delete(callId)) return false;
    keepHot();
    l.writeFrame(answerFrame(callId, status, payload));
    if (l.sleepers.delete(callId)) post(l, { type: 'wake', id: 'wake' });
    return true;
  };

  /** Ends every `call_tool` the worker is blocked on with "interrupted" (an interrupt, a timeout). */
  const cutCalls = (l: Link) => {
    for (const callId of [...l.calls]) writeAnswer(l, callId, TOOL_STATUS.interrupted, toAnswer(TOOL_STATUS.interrupted, null));
  };

  /** Answers a `call_tool` the Pyodide worker wrote on its pipe: the handler runs here, and the answer is encoded (and bounded) here. */
  const answerPipe = async (l: Link, text: string) => {
    const t0 = performance.now();
    let request;
    try {
      request = parseMessage(ToolCallMessageSchema, parseToolJson(text));
    } catch (e) {
      request = { ok: false as const, error: (e as Error).message };
    }
    if (!request.ok) {
      // Only the runtime's own worker code writes here: a malformed request means it is not itself any more.
      return died(l, { reason: 'exit', detail: `it sent a malformed call_tool request (${request.error.slice(0, 200)})` });
    }
    const msg = request.value;
    l.calls.add(msg.callId);
    let result: Awaited<ReturnType<ToolCallHandler>>;
    const h = handler;
    const name = clipped(msg.name);
    if (!h) result = { ok: false, error: { code: 'NO_TOOLS', message: 'no tools are connected to this Python runtime' } };
    else {
      const scope = { runtime: self, tool: name, done: false };
      try {
        result = await runInToolScope(scope, () => h(msg.name, msg.args, msg.instance)).finally(() => (scope.done = true));
      } catch (e) {
        result = { ok: false, error: { code: 'TOOL_FAILED', message: String((e as Error)?.message ?? e) } };
      }
    }
    let status: number = result.ok ? TOOL_STATUS.ok : TOOL_STATUS.toolError;
    let payload: Uint8Array;
    try {
      payload = result.ok
        ? toAnswer(status, result.value, undefined, false, o.maxToolAnswerBytes)
        : toAnswer(status, { code: result.error.code, message: result.error.message, hint: result.hint });
    } catch (e) {
      const tooLarge = e instanceof MarshalTooLargeError;
      status = tooLarge ? TOOL_STATUS.toolError : TOOL_STATUS.bridgeError;
      payload = toAnswer(
        status,
        tooLarge
          ? { code: 'ANSWER_TOO_LARGE', message: `${name} answered with more than ${o.maxToolAnswerBytes} bytes (maxToolAnswerBytes); the answer was not delivered`, hint: 'Ask for less (a prefix, a page, a filter), or raise maxToolAnswerBytes.' }
          : { code: 'UNSENDABLE_RESULT', message: `${name} returned a value Python cannot receive: ${(e as Error).message}` },
      );
    }
    if (writeAnswer(l, msg.callId, status, payload)) {
      observe?.({ name, argBytes: msg.argBytes ?? 0, resultBytes: payload.byteLength, durationMs: performance.now() - t0, ok: status === TOOL_STATUS.ok });
    }
  };

  const answerFetch = async (l: Link, msg: Extract<FromChild, { type: 'fetch' }>) => {
    const { id, type: _type, ...req } = msg;
    try {
      const response = await policyFetch(o.network, { type: 'fetch', id, ...req }, { maxBytes: o.maxToolAnswerBytes, timeoutMs: o.defaultTimeoutMs, owner: 'Python' });
      post(l, { type: 'fetch-result', id, ok: true, response });
    } catch (e) {
      const w = toWireError(e);
      post(l, { type: 'fetch-result', id, ok: false, error: w.code ? { name: w.name, message: w.message, code: w.code } : { name: w.name, message: w.message } });
    }
  };

  const api: PyodideRuntimeApi = {
    async init() {
      if (cycleError(self, 'init')) return;
      const r = await rpc('init', []);
      if (!r.ok) throw Object.assign(new Error(r.error.message), { info: r.error });
    },

    isReady: () => status === 'ready' || status === 'busy',

    getState: () => {
      const state: RuntimeState = { ...childState, status, restarts: childState.restarts + replaced };
      const error = lastError ?? childState.lastError;
      if (error) state.lastError = error;
      return state;
    },

    async execute(code, opts = {}) {
      const runId = opts.runId ?? nextId('py');
      const timeoutMs = opts.timeoutMs ?? o.defaultTimeoutMs;
      const t0 = performance.now();
      const refused = cycleError(self, 'execute');
      if (refused) return errorResult(runId, refused, t0);
      if (typeof code !== 'string') return errorResult(runId, { type: 'TypeError', message: `code must be a string, got ${typeof code}`, traceback: '' }, t0);
      const l = await live().catch(() => undefined);
      l?.queued.set(runId, timeoutMs);
      // Covers a start-up of Python and the grace after an ignored interrupt.
      const watchdog = timeoutMs + o.interruptGraceMs + (status === 'ready' ? 15_000 : o.initTimeoutMs);
      // The caller's signal cancels the run in the child (after the call, so the child knows the run).
      const signal = opts.signal;
      let unlisten: (() => void) | undefined;
      // Aborted already when the call is sent: the child does not start it (as a run waiting for its turn).
      const args = () => [code, signal?.aborted ? { timeoutMs, runId, aborted: true } : { timeoutMs, runId }];
      const r = await rpc('execute', args, watchdog, (sent) => {
        if (!signal || signal.aborted) return;
        const abort = () => post(sent, { type: 'abort', id: 'abort', runId });
        signal.addEventListener('abort', abort, { once: true });
        unlisten = () => signal.removeEventListener('abort', abort);
      });
      unlisten?.();
      l?.queued.delete(runId);
      if (!r.ok) {
        if (r.error.type === 'WorkerCrashed') {
          return errorResult(runId, r.error, t0, 'The Python process stopped during the run (for example out of memory, or an exit); a new one starts with the next call: globals, imports and installed packages were lost.');
        }
        host.emit('python:started', { runId });
        host.emit('python:finished', { runId, ok: false, executionTime: performance.now() - t0, errorType: r.error.type });
        return errorResult(runId, r.error, t0);
      }
      const result = ExecuteResultSchema.safeParse(r.value);
      if (!result.success || result.data.runId !== runId) return errorResult(runId, { type: 'ProtocolError', message: 'the Python process answered the run with something that is not a result', traceback: '' }, t0);
      return result.data as ExecuteResult;
    },

    async installPackage(spec) {
      const refused = cycleError(self, 'installPackage');
      if (refused) return { ok: false as const, error: refused, hint: hintFor(refused) };
      let arg: string | { fileName: string; bytes: Uint8Array } = spec;
      // The child may not read the host's files: a local wheel is read here and sent as bytes.
      if (typeof spec === 'string' && (spec.startsWith('/') || spec.startsWith('file:') || /^[A-Za-z]:[\\/]/.test(spec))) {
        try {
          const { readFile } = await import('node:fs/promises');
          const { basename } = await import('node:path');
          const { fileURLToPath } = await import('node:url');
          const path = spec.startsWith('file:') ? fileURLToPath(spec) : spec;
          arg = { fileName: basename(path), bytes: new Uint8Array(await readFile(path)) };
        } catch (e) {
          const error: PythonErrorInfo = { type: 'PackageInstallError', message: `could not read ${spec}: ${(e as Error).message}`, traceback: '' };
          return { ok: false as const, error, hint: 'Check the path of the wheel.' };
        }
      }
      const r = await rpc('installPackage', [arg]);
      if (!r.ok) return { ok: false as const, error: r.error, hint: hintFor(r.error) ?? 'Check the package name, or install a wheel by URL or path.' };
      const out = InstallResultSchema.safeParse(r.value);
      if (!out.success) return { ok: false as const, error: { type: 'ProtocolError', message: 'the Python process answered the install with something unexpected', traceback: '' } };
      return out.data as Awaited<ReturnType<PyodideRuntimeApi['installPackage']>>;
    },

    async listPackages() {
      if (cycleError(self, 'listPackages')) return childState.packages;
      const r = await rpc('listPackages', []);
      const list = r.ok ? PackagesSchema.safeParse(r.value) : undefined;
      return list?.success ? (list.data as PackageInfo[]) : childState.packages;
    },

    async syncWorkspace(direction) {
      const refused = cycleFailure(self, 'syncWorkspace');
      if (refused) throw refused;
      const ws = host.workspace;
      if (!ws) throw new Error('[syncWorkspace] no workspace is connected to this runtime (load the Workspace upgrade)');
      const files: { path: string; data: Uint8Array; mtime: number }[] = [];
      const skipped: string[] = [];
      if (direction === 'in' || direction === 'both') {
        let bytes = 0;
        for (const f of ws.list()) {
          if (bytes + f.size > o.maxSyncBytes) {
            skipped.push(f.path);
            continue;
          }
          bytes += f.size;
          files.push({ path: f.path, data: ws.read(f.path), mtime: f.mtime });
        }
      }
      const r = await rpc('syncWorkspace', [direction, files]);
      if (!r.ok) throw Object.assign(new Error(`[syncWorkspace] ${r.error.message}`), { info: r.error });
      const answer = SyncAnswerSchema.safeParse(r.value);
      if (!answer.success) throw new Error('[syncWorkspace] the Python process answered with something unexpected');
      const report = answer.data.report as SyncReport;
      if (report.in) report.in.skipped = [...skipped, ...report.in.skipped];
      // Files come back only as this answer, and never more than the sync's byte limit.
      let bytes = 0;
      for (const f of answer.data.written) {
        bytes += f.data.byteLength;
        if (bytes > o.maxSyncBytes) throw new Error(`[syncWorkspace] the Python process sent back more than maxSyncBytes (${o.maxSyncBytes})`);
      }
      for (const f of answer.data.written) await ws.write(f.path, f.data);
      return report;
    },

    interrupt() {
      void link
        ?.then((l) => {
          post(l, { type: 'interrupt', id: 'interrupt' });
          cutCalls(l);
        })
        .catch(() => undefined);
    },

    setToolCallHandler(h, obs) {
      handler = h;
      observe = obs;
    },

    async setPythonModules(files) {
      const refused = cycleFailure(self, 'setPythonModules');
      if (refused) throw refused;
      modules = files;
      const current = link && (await link.catch(() => undefined));
      // A child not started yet gets them in its start message.
      if (!current || current.dead) return;
      const r = await rpc('setPythonModules', [files]);
      if (!r.ok) throw new Error(`[setPythonModules] ${r.error.message}`);
    },

    async restart() {
      const refused = cycleFailure(self, 'restart');
      if (refused) throw refused;
      const r = await rpc('restart', []);
      if (!r.ok) throw Object.assign(new Error(`[restart] ${r.error.message}`), { info: r.error });
    },

    async reset() {
      const refused = cycleFailure(self, 'reset');
      if (refused) throw refused;
      const r = await rpc('reset', []);
      if (!r.ok) throw new Error(`[reset] ${r.error.message}`);
    },

    async dispose() {
      if (disposed) return;
      const current = link;
      disposed = true;
      link = undefined;
      const l = await current?.catch(() => undefined);
      if (l && !l.dead) {
        l.dead = true;
        for (const resolve of l.pending.values()) resolve({ ok: false, error: notReady('the runtime was disposed') });
        l.pending.clear();
        await l.child.terminate().catch(() => undefined);
      }
      await cacheWork;
      setStatus('idle');
    },
  };
  return api;
}

/**
 * Why a tool's answer cannot go to the child: too large for a message, or not data. Marshal (what
 * Python would receive) names the offending path, which the structured clone does not.
 */
function unsendable(name: string, result: { ok: boolean; value?: unknown }, e: unknown): { ok: false; error: { code: string; message: string } } {
  if ((e as { code?: unknown }).code === 'MESSAGE_TOO_LARGE') {
    return { ok: false, error: { code: 'ANSWER_TOO_LARGE', message: `${name} answered with more than Python may receive: ${(e as Error).message}` } };
  }
  let why = (e as Error).message;
  try {
    toAnswer(0, result.value);
  } catch (marshal) {
    why = (marshal as Error).message;
  }
  return { ok: false, error: { code: 'UNSENDABLE_RESULT', message: `${name} returned a value Python cannot receive: ${why}` } };
}

/**
 * A frame writer for the pipe: small frames go out with one `writeSync` on its descriptor (a
 * stream write costs ~10 µs of machinery, several times the tiny call it carries); what does not
 * fit at once, and anything queued behind it, goes through the stream, which keeps the order.
 */
async function directWriter(pipe: { write(chunk: Uint8Array): boolean; writableLength: number }): Promise<(frame: Uint8Array) => void> {
  const { writeSync } = await import('node:fs');
  const fd = (pipe as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) return (frame) => void pipe.write(frame);
  return (frame) => {
    if (pipe.writableLength === 0 && frame.length <= 64 * 1024) {
      let written = 0;
      try {
        written = writeSync(fd, frame);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      }
      if (written === frame.length) return;
      pipe.write(frame.subarray(written));
      return;
    }
    pipe.write(frame);
  };
}

/** A name as reported: never more than 128 characters. */
function clipped(name: string): string {
  return name.length > 128 ? `${name.slice(0, 128)}…` : name;
}

/**
 * The confined child's package download folder: the host's own (`packageCacheDirFor`) with
 * `-confined` appended, its existing part resolved through symbolic links (the permission model
 * compares the paths Pyodide uses). Not created here: Pyodide creates it at the first download.
 * Undefined when packages are not downloaded (a local index is read in place).
 */
async function childPackageDir(o: ResolvedOptions): Promise<string | undefined> {
  const hostDir = await packageCacheDirFor(o);
  if (!hostDir) return undefined;
  const { realpath } = await import('node:fs/promises');
  const { basename, dirname, join, resolve } = await import('node:path');
  let existing = resolve(`${hostDir.replace(/[\\/]+$/, '')}-confined`);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...rest);
    } catch {
      if (dirname(existing) === existing) return resolve(`${hostDir}-confined`);
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
}

/**
 * The permission grant for the child's package folder: everything inside it, and the folder
 * itself, whether or not it exists yet (Node grants a missing folder only with the wildcard).
 */
function insideGrant(dir: string): string {
  return `${dir}/*`;
}

/** The local folder of a file path or `file:` URL of Pyodide's files, for the child's read permission. */
async function localDir(indexURL: string): Promise<string | undefined> {
  if (/^https?:/.test(indexURL)) return undefined;
  const { fileURLToPath } = await import('node:url');
  const path = indexURL.startsWith('file:') ? fileURLToPath(indexURL) : indexURL;
  return path.replace(/[\\/]+$/, '');
}
