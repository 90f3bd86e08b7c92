/**
 * The Pyodide worker: a module Web Worker in the browser, a `worker_threads` worker in Node.
 * Speaks only the protocol in `protocol/protocol.ts` and validates every message it receives.
 * Imports no DOM and nothing Node-specific at the top level.
 *
 * This file receives requests and runs them one at a time; the parts live beside it:
 * `port.ts` (the message channel), `startup.ts` (starting Python, snapshots),
 * `output.ts` (stdout/stderr), `bridge.ts` (`call_tool`), `install.ts`
 * (packages), `files.ts` (file sync), `to-plain.ts` (values).
 */
import { LoopSpinner } from '../../../src/bridge/loop-spinner.ts';
import { clip } from '../../../src/kernel/bounded.ts';
import { measureClone } from '../../../src/sandbox/measure.ts';
import { parseHostMessage, type HeapFull, type HostMessage, type PythonErrorInfo } from '../protocol/protocol.ts';
import { toPlain } from './to-plain.ts';
import { WorkerBridge } from './bridge.ts';
import { readChanged, writeFiles } from './files.ts';
import { install } from './install.ts';
import { WorkerOutput } from './output.ts';
import { heapFull, setHeapLimit } from './heap.ts';
import { isFatal, jsError, openPort } from './port.ts';
import { preloadPython, startPython, type Started } from './startup.ts';
import type { Fetched } from '../../../src/sandbox/protocol.ts';
import { INTERRUPT_RUNNING, INTERRUPT_SIGNAL } from '../protocol/interrupt-buffer.ts';

const port = await openPort();
const output = new WorkerOutput(port);
const bridge = new WorkerBridge(port, output);
let python: Started | undefined;
/** Keeps this thread awake for a moment after each response: the next request usually follows. */
let spinner = new LoopSpinner(0);

/** Python's fetches waiting for the host, by fetch id. */
const fetches = new Map<number, { resolve(r: Fetched): void; reject(e: Error): void }>();
let fetchSeq = 0;
/** Sends a request the network policy allows to the host, which performs it (and checks the policy again). */
function fetchViaHost(req: { url: string; method: string; headers: [string, string][]; body?: string | Uint8Array }): Promise<Fetched> {
  const fetchId = ++fetchSeq;
  return new Promise((resolve, reject) => {
    fetches.set(fetchId, { resolve, reject });
    port.post({ type: 'fetch', id: output.run?.id ?? 'none', fetchId, ...req });
  });
}

/**
 * Says, in the interrupt buffer, that no user code runs (before any answer is posted): the host
 * then knows a run it interrupted is over even when its answer has not reached it yet.
 */
function runOver(): void {
  if (python?.interrupt) Atomics.store(python.interrupt, INTERRUPT_RUNNING, 0);
}

function reply(id: string, value: unknown, transfer?: Transferable[]): void {
  runOver();
  port.post({ type: 'response', id, ok: true, value }, transfer);
  spinner.hold();
}

/** Most characters of an error's message and of its traceback that leave the worker. */
const MAX_ERROR_CHARS = 64 * 1024;

function fail(id: string, error: PythonErrorInfo, fatal = false, full?: HeapFull): void {
  // An exception's text is Python's to choose: bounded like any value.
  runOver();
  const bounded = { ...error, message: clip(String(error.message), MAX_ERROR_CHARS), traceback: clip(String(error.traceback), MAX_ERROR_CHARS) };
  port.post({ type: 'response', id, ok: false, error: bounded, ...(fatal ? { fatal } : {}), ...(full ? { heapFull: full } : {}) });
  spinner.hold();
}

/** Size of the WebAssembly heap in bytes (it only grows), when Pyodide exposes it. */
function heapBytes(): number | undefined {
  return (python?.py as unknown as { _module?: { HEAPU8?: Uint8Array } } | undefined)?._module?.HEAPU8?.byteLength;
}

/** Fresh globals for user code (the `reset` request). */
function clearGlobals(p: Started): void {
  p.runner.reset!();
}

async function execute(p: Started, id: string, runId: string, code: string): Promise<void> {
  const jsSafe = (v: unknown) => p.runner.js_safe!(v);
  output.setRun({ id, runId });
  if (p.interrupt) {
    Atomics.store(p.interrupt, INTERRUPT_SIGNAL, 0);
    Atomics.store(p.interrupt, INTERRUPT_RUNNING, 1);
  }
  try {
    const res = p.runner.run!(code, p.result.transport === 'jspi') as { toJs(): unknown; get(i: number): unknown; destroy(): void };
    let ok = res.get(0) as boolean;
    let payload = res.get(1);
    const isAsync = res.get(2) as boolean;
    res.destroy();
    if (isAsync) {
      const awaitable = payload as { destroy(): void } & PromiseLike<unknown>;
      const inner = (await awaitable) as { get(i: number): unknown; destroy(): void };
      awaitable.destroy?.();
      ok = inner.get(0) as boolean;
      payload = inner.get(1);
      inner.destroy();
    }
    output.flush();
    if (!ok) return fail(id, toPlain(payload, jsSafe) as PythonErrorInfo, false, heapFull(p.py));
    const value = toPlain(payload, jsSafe);
    // Measured here, before posting: what crosses to the host is bounded whatever Python returns.
    const size = measureClone(value, p.limits.resultBytes);
    if (size > p.limits.resultBytes) {
      return fail(id, {
        type: 'ResultTooLarge',
        message: `the value of the run is at least ${size} bytes; the limit is ${p.limits.resultBytes} (maxResultBytes)`,
        traceback: '',
      });
    }
    const full = heapFull(p.py);
    reply(id, full ? { value, memoryBytes: heapBytes(), heapFull: full } : { value, memoryBytes: heapBytes() });
  } catch (e) {
    output.flush();
    fail(id, jsError(e), isFatal(e), isFatal(e) ? undefined : heapFull(p.py));
  } finally {
    output.setRun(undefined);
    // The last call_tool answer of the run may still hold the shared region.
    bridge.release();
  }
}

async function handle(msg: HostMessage): Promise<void> {
  if (msg.type === 'preload') return preloadPython(msg.indexURL, msg.confine);
  if (msg.type === 'init') {
    spinner = new LoopSpinner(msg.pollMs);
    python = await startPython(msg, port, output, bridge, fetchViaHost);
    // After a restore too: the limit lives in the heap, and a snapshot's heap has none.
    if (msg.heapLimitBytes !== undefined) setHeapLimit(python.py, msg.heapLimitBytes);
    const { snapshot } = python.result;
    reply(msg.id, python.result, snapshot ? [snapshot.buffer as ArrayBuffer] : undefined);
    // The snapshot's buffer went to the host: keep no reference to it.
    delete python.result.snapshot;
    return;
  }
  if (msg.type === 'tool-result') return bridge.resolveAsync(msg.callId, msg.status, msg.payload);
  if (msg.type === 'fetch-result') {
    const pending = fetches.get(msg.fetchId);
    fetches.delete(msg.fetchId);
    if (msg.ok) pending?.resolve(msg.response);
    else pending?.reject(Object.assign(new TypeError(msg.error.message), { code: msg.error.code }));
    return;
  }
  const p = python;
  if (!p) return fail(msg.id, { type: 'RuntimeNotReady', message: 'the Python runtime is not initialized', traceback: '' });
  switch (msg.type) {
    case 'execute':
      return execute(p, msg.id, msg.runId, msg.code);
    case 'install': {
      const r = await install(p.py, p.lock, msg.spec);
      return r.ok ? reply(msg.id, r.value) : fail(msg.id, r.error);
    }
    case 'list-packages': {
      const list = p.runner.installed!() as { toJs(): [string, string][]; destroy(): void };
      const pairs = list.toJs();
      list.destroy();
      return reply(msg.id, pairs.map(([name, version]) => ({ name, version })));
    }
    case 'reset':
      clearGlobals(p);
      return reply(msg.id, null);
    case 'write-files':
      return reply(msg.id, writeFiles(p.py, msg.root, msg.files));
    case 'read-changed': {
      const changed = readChanged(p.py, msg.root, msg.known, msg.maxBytes);
      return reply(msg.id, changed, changed.files.map((f) => f.data.buffer as ArrayBuffer));
    }
    case 'memory':
      return reply(msg.id, { wasmHeapBytes: heapBytes() ?? null });
  }
}

// Requests run one at a time in arrival order, except tool answers, which a waiting run needs now.
let chain: Promise<void> = Promise.resolve();
port.listen((raw) => {
  // The request the spinning waited for has come.
  spinner.release();
  const parsed = parseHostMessage(raw);
  if (!parsed.ok) {
    const id = typeof raw === 'object' && raw && 'id' in raw ? String((raw as { id: unknown }).id) : 'unknown';
    return fail(id, { type: 'ProtocolError', message: parsed.error, traceback: '' });
  }
  const msg = parsed.value;
  if (msg.type === 'tool-result' || msg.type === 'fetch-result') {
    void handle(msg);
    return;
  }
  chain = chain.then(() =>
    handle(msg).catch((e) => {
      fail(msg.id, jsError(e), isFatal(e));
    }),
  );
});

