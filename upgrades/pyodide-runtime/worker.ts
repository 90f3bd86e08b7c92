/**
 * The Pyodide worker: a module Web Worker in the browser, a `worker_threads` worker in Node.
 * Speaks only the protocol in `protocol.ts` and validates every message it receives.
 * Imports no DOM and nothing Node-specific at the top level.
 */
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { ensureStructuredCloneable } from './clone-safety.ts';
import {
  DEFAULT_PACKAGE_INDEX,
  HostMessageSchema,
  parseMessage,
  type HostMessage,
  type InitRequest,
  type InitResult,
  type PythonErrorInfo,
  type ReadChangedResult,
  type Transport,
  type WorkerMessage,
} from './protocol.ts';
import { BRIDGE_MODULE, MORE_PARTS, RUNNER_MODULE, TOOL_STATUS } from './python-prelude.ts';
import { toAnswer } from '../../src/bridge/marshal.ts';
import { OUTPUT_KIND, OutputRingWriter } from '../../src/bridge/output-ring.ts';
import { SyncChannelAbort, SyncChannelClient } from '../../src/bridge/sync-channel.ts';
import { parseToolJson, toolRequestText } from '../../src/bridge/tool-request.ts';

interface Port {
  post(msg: WorkerMessage, transfer?: Transferable[]): void;
  listen(handler: (msg: unknown) => void): void;
}

/** Whether this worker is a Node `worker_threads` worker (else a browser Web Worker). */
const isNode =
  typeof process !== 'undefined' && !!process.versions?.node && typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === 'undefined';

async function openPort(): Promise<Port> {
  if (isNode) {
    const { parentPort } = await import('node:worker_threads');
    return {
      post: (m, t) => parentPort!.postMessage(m, t as never),
      listen: (h) => parentPort!.on('message', h),
    };
  }
  const scope = globalThis as unknown as { postMessage(m: unknown, t?: Transferable[]): void; addEventListener(t: string, h: (e: MessageEvent) => void): void };
  return {
    post: (m, t) => scope.postMessage(m, t ?? []),
    listen: (h) => scope.addEventListener('message', (e) => h(e.data)),
  };
}

const port = await openPort();
let py: PyodideInterface | undefined;
let runner: { [k: string]: (...args: unknown[]) => unknown } | undefined;
let transport: Transport = 'async';
let channel: SyncChannelClient | undefined;
let interrupt: Int32Array | undefined;
let lockPackages = new Map<string, { name: string; version: string }>();
let currentRun: { id: string; runId: string } | undefined;
let callSeq = 0;
const pendingAsyncCalls = new Map<number, (status: number, payload: Uint8Array) => void>();

/**
 * The shared output ring, when the host sent one (shared memory available): output then goes
 * there byte for byte and the host drains it on its own clock, even while Python computes.
 */
let outputRing: OutputRingWriter | undefined;

/**
 * stdout/stderr. Through the output ring when there is one; otherwise decoded incrementally and
 * posted every `flushMs` or 64 KB, before `time.sleep`, and always at the end of a run (a batch
 * then waits for the next write while Python computes silently).
 */
class OutputStream {
  private readonly decoder = new TextDecoder('utf-8');
  private pending = '';
  private last = 0;
  constructor(private readonly name: 'stdout' | 'stderr', private flushMs: number) {}
  configure(flushMs: number): void {
    this.flushMs = flushMs;
  }
  write(buf: Uint8Array): number {
    if (outputRing) {
      // The buffer may be a view of Pyodide's memory: the ring copies it at once.
      outputRing.write(OUTPUT_KIND[this.name], buf);
      return buf.length;
    }
    this.pending += this.decoder.decode(buf, { stream: true });
    const now = performance.now();
    if (this.pending.length >= 65536 || now - this.last >= this.flushMs) this.flush(now);
    return buf.length;
  }
  flush(now = performance.now()): void {
    this.last = now;
    if (!this.pending) return;
    const chunk = this.pending;
    this.pending = '';
    // Output outside a run (e.g. during start-up) is attributed to the start-up request.
    const run = currentRun ?? { id: 'init', runId: 'init' };
    port.post({ type: 'stream', id: run.id, runId: run.runId, stream: this.name, chunk });
  }
}
const stdout = new OutputStream('stdout', 16);
const stderr = new OutputStream('stderr', 16);

function reply(id: string, value: unknown, transfer?: Transferable[]): void {
  port.post({ type: 'response', id, ok: true, value }, transfer);
}

function fail(id: string, error: PythonErrorInfo, fatal = false): void {
  port.post(fatal ? { type: 'response', id, ok: false, error, fatal } : { type: 'response', id, ok: false, error });
}

function jsError(e: unknown, type = 'RuntimeError'): PythonErrorInfo {
  const err = e as { type?: string; message?: string; stack?: string };
  return { type: err.type ?? type, message: err.message ?? String(e), traceback: '' };
}

function isFatal(e: unknown): boolean {
  return /fatally failed|Aborted\(|unreachable|memory access out of bounds|Maximum call stack/.test(String((e as Error)?.message ?? e));
}

type ConvertibleProxy = { toJs: (o: object) => unknown; destroy?: () => void };

/**
 * Converts a Python result to plain data and releases every proxy made on the way. Dicts become
 * objects, `None` becomes `null`; what JavaScript cannot hold follows the ensureStructuredCloneable
 * rules. Never throws: a value that cannot be converted at all is described instead.
 */
function toPlain(value: unknown): unknown {
  const proxy = value as ConvertibleProxy | undefined;
  if (!proxy || typeof proxy.toJs !== 'function') return ensureStructuredCloneable(value, { undefinedAs: 'null' });
  const made: { destroy(): void }[] = [];
  const opts = { undefinedAs: 'null', destroyProxies: false } as const;
  type Proxy = { type: string; copy(): Proxy; destroy(): void } & Iterable<unknown>;
  // Called for objects Pyodide has no conversion for: frozensets become lists like sets do; the
  // rest stay proxies (copied, because Pyodide releases the one it passes in) to be described.
  const default_converter = (obj: Proxy, convert: (p: unknown) => unknown, cache: (p: Proxy, v: unknown) => void) => {
    if (obj.type === 'frozenset') {
      const items: unknown[] = [];
      cache(obj, items);
      for (const x of obj) items.push(x && typeof (x as ConvertibleProxy).toJs === 'function' ? convert(x) : x);
      return items;
    }
    const kept = obj.copy();
    made.push(kept);
    return kept;
  };
  try {
    let js: unknown;
    try {
      js = proxy.toJs({ pyproxies: made, default_converter });
    } catch {
      // A dict key JavaScript cannot hold (a tuple, a frozenset, an object): Python rewrites the
      // keys, then the copy converts.
      const safe = runner!.js_safe!(proxy) as ConvertibleProxy;
      try {
        js = safe.toJs({ pyproxies: made, default_converter });
      } finally {
        safe.destroy?.();
      }
    }
    return ensureStructuredCloneable(js, opts);
  } catch {
    return ensureStructuredCloneable(proxy, opts);
  } finally {
    for (const p of made) release(p);
    release(proxy);
  }
}

function release(p: { destroy?: () => void }): void {
  try {
    p.destroy?.();
  } catch {
    // Already destroyed (toJs may hand back the proxy itself): nothing to release.
  }
}

async function fetchWithProgress(url: string, from: number, to: number): Promise<void> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url} answered ${res.status}`);
  const total = Number(res.headers.get('content-length')) || 0;
  const reader = res.body.getReader();
  let got = 0;
  let lastPercent = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.byteLength;
    const percent = Math.floor(from + (total ? Math.min(1, got / total) : 0.5) * (to - from));
    if (percent !== lastPercent) {
      lastPercent = percent;
      port.post({ type: 'progress', id: 'init', stage: 'fetch', percent, message: url.slice(url.lastIndexOf('/') + 1) });
    }
  }
}

async function readLock(req: InitRequest): Promise<string> {
  const local = `${req.indexURL}pyodide-lock.json`;
  // The official index of the pinned version holds the same lock file as the installed package:
  // read the local copy, so start-up never waits on the network. A mirror may list more packages.
  const own = req.packageIndexURL === req.indexURL || req.packageIndexURL === DEFAULT_PACKAGE_INDEX;
  const urls = own ? [local] : [`${req.packageIndexURL}pyodide-lock.json`, local];
  for (const url of urls) {
    try {
      if (isNode && !/^https?:/.test(url)) {
        const { readFile } = await import('node:fs/promises');
        return await readFile(url.startsWith('file:') ? new URL(url) : url, 'utf8');
      } else {
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(), 3000);
        try {
          const r = await fetch(url, { signal: ctl.signal });
          if (r.ok) return await r.text();
        } finally {
          clearTimeout(timer);
        }
      }
    } catch {
      // Unreachable mirror: fall back to the lock file shipped with the installed Pyodide (same pinned version).
    }
  }
  throw new Error(`no pyodide-lock.json could be read from ${urls.join(' or ')}`);
}

async function init(req: InitRequest): Promise<void> {
  const progress = (stage: 'fetch' | 'compile' | 'stdlib' | 'ready', percent: number, message?: string) =>
    port.post(message ? { type: 'progress', id: req.id, stage, percent, message } : { type: 'progress', id: req.id, stage, percent });
  stdout.configure(req.stdoutFlushMs);
  stderr.configure(req.stdoutFlushMs);
  if (req.output) {
    outputRing = new OutputRingWriter(req.output, {
      ring: (full) => port.post(full ? { type: 'output-ready', id: 'output', full } : { type: 'output-ready', id: 'output' }),
    });
  }
  progress('fetch', 0, 'starting');
  if (!isNode) {
    // Fetching first shows real byte progress and warms the HTTP cache loadPyodide then reads from.
    await fetchWithProgress(`${req.indexURL}pyodide.asm.wasm`, 0, 30);
    await fetchWithProgress(`${req.indexURL}python_stdlib.zip`, 30, 40);
  }
  progress('fetch', 40);
  progress('compile', 40, 'compiling the WebAssembly module');
  const lockText = await readLock(req);
  lockPackages = new Map(
    Object.values((JSON.parse(lockText) as { packages: Record<string, { name: string; version: string }> }).packages).map((p) => [normalizeName(p.name), p]),
  );
  let stdlibReported = false;
  const load = (snapshot: { _loadSnapshot: Uint8Array } | { _makeSnapshot: true } | object) =>
    loadPyodide({
      indexURL: req.indexURL,
      lockFileContents: lockText,
      packageBaseUrl: req.packageIndexURL,
      stdout: (m: string) => void stdout.write(new TextEncoder().encode(`${m}\n`)),
      stderr: (m: string) => void stderr.write(new TextEncoder().encode(`${m}\n`)),
      fsInit: async () => {
        if (!stdlibReported) progress('stdlib', 70, snapshot && '_loadSnapshot' in snapshot ? 'restoring Python from a memory snapshot' : 'starting Python');
        stdlibReported = true;
      },
      ...snapshot,
    });
  // A memory snapshot of a freshly started interpreter (made by the first worker, kept by the
  // host) restores in ~0.2 s instead of a ~2.5 s start. It is Pyodide's private API for the pinned
  // version, so any failure falls back to a normal start.
  let snapshot: Uint8Array | undefined;
  let fromSnapshot = false;
  if (req.snapshot) {
    try {
      py = await load({ _loadSnapshot: req.snapshot });
      fromSnapshot = true;
    } catch {
      py = undefined;
    }
  }
  if (!py) {
    py = await load(req.makeSnapshot ? { _makeSnapshot: true } : {});
    if (req.makeSnapshot) {
      try {
        // Taken before anything of ours touches the interpreter, so it holds no JS references.
        snapshot = py.makeMemorySnapshot();
      } catch {
        snapshot = undefined;
      }
    }
  }
  if (!stdlibReported) progress('stdlib', 70, 'starting Python');
  py.setStdout({ write: (b: Uint8Array) => stdout.write(b) });
  py.setStderr({ write: (b: Uint8Array) => stderr.write(b) });
  if (req.interrupt) {
    interrupt = new Int32Array(req.interrupt);
    py.setInterruptBuffer(interrupt);
  }
  if (req.bridge && req.transport === 'shared-memory') channel = new SyncChannelClient(req.bridge);
  transport = req.transport;
  py.registerJsModule('_armature_js', {
    transport,
    call_sync: callSync,
    next_part: nextPart,
    call_async: callAsync,
    flush_output: () => {
      stdout.flush();
      stderr.flush();
    },
  });
  py.FS.mkdirTree('/armature/lib');
  py.FS.writeFile('/armature/lib/armature_bridge.py', BRIDGE_MODULE);
  py.FS.writeFile('/armature/lib/armature_runner.py', RUNNER_MODULE);
  writeModules(req.modules);
  py.runPython('import sys\nsys.path.insert(0, "/armature/lib")\nimport armature_runner');
  runner = py.pyimport('armature_runner') as never;
  py.FS.mkdirTree('/workspace');
  progress('ready', 100);
  const version = py.runPython('import sys; sys.version.split()[0]') as string;
  const result: InitResult = { pythonVersion: version, pyodideVersion: py.version, transport, fromSnapshot, snapshot };
  reply(req.id, result, snapshot ? [snapshot.buffer as ArrayBuffer] : undefined);
}

function writeModules(modules: { path: string; source: string }[]): void {
  for (const m of modules) {
    const full = `/armature/lib/${m.path}`;
    py!.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
    py!.FS.writeFile(full, m.source);
  }
}

function toolCall(callId: number, name: string, argsJson: string, instance: string | null | undefined): WorkerMessage {
  const msg = { type: 'tool-call' as const, id: currentRun?.id ?? 'none', callId, name, args: parseToolJson(argsJson), argBytes: argsJson.length };
  return typeof instance === 'string' ? { ...msg, instance } : msg;
}

/**
 * `_armature_js.call_sync`: offers the request and blocks on the shared channel. The answer —
 * marshal of `(status, value)` — is returned as a view of the shared region: Python copies it
 * at once (`to_bytes`), and the region is released at the next call or the end of the run.
 */
function callSync(name: string, argsJson: string, instance?: string | null): Uint8Array {
  if (!channel) return toAnswer(TOOL_STATUS.bridgeError, { code: 'NO_CHANNEL', message: 'the shared-memory channel is not set up' });
  const callId = ++callSeq;
  try {
    // The request goes through the shared slot; a message follows only if the host is not
    // already watching it (after an answer it watches for a moment: calls come in bursts).
    const id = currentRun?.id ?? 'none';
    const outcome = channel.offer(callId, toolRequestText({ id, callId, name, instance }, argsJson));
    if (outcome === 'notify') port.post({ type: 'tool-call-ready', id, callId });
    else if (outcome === 'too-large') port.post(toolCall(callId, name, argsJson, instance));
    lastCallId = callId;
    return receive(callId);
  } catch (e) {
    return failedAnswer(e);
  }
}

/** The call whose answer parts `next_part` receives. */
let lastCallId = 0;
/** Where a part is copied so the shared region is freed at once (reused: no fresh pages per part). */
let partCopy = new Uint8Array(0);

/** The next answer to `callId`: a view of the shared region, or for a part with more to come a copy. */
function receive(callId: number): Uint8Array {
  const { status, payload } = channel!.waitFor(callId, { interrupt, view: true });
  if (!(status & MORE_PARTS)) return payload;
  if (partCopy.length < payload.length) partCopy = new Uint8Array(Math.max(payload.length, 2 * partCopy.length));
  partCopy.set(payload);
  // Free the region now: the host places the next part while Python decodes this one.
  channel!.release();
  return partCopy.subarray(0, payload.length);
}

function failedAnswer(e: unknown): Uint8Array {
  if (e instanceof SyncChannelAbort && e.reason === 'interrupted') return toAnswer(TOOL_STATUS.interrupted, null);
  return toAnswer(TOOL_STATUS.bridgeError, { code: 'BRIDGE_FAILED', message: String((e as Error).message) });
}

/** `_armature_js.next_part`: the next part of the answer to the last `call_sync`. */
function nextPart(): Uint8Array {
  if (!channel) return toAnswer(TOOL_STATUS.bridgeError, { code: 'NO_CHANNEL', message: 'the shared-memory channel is not set up' });
  try {
    return receive(lastCallId);
  } catch (e) {
    return failedAnswer(e);
  }
}

/** `_armature_js.call_async`: posts the call; the answer arrives as a `tool-result` message. */
function callAsync(name: string, argsJson: string, instance?: string | null): Promise<Uint8Array> {
  const callId = ++callSeq;
  return new Promise((resolve) => {
    pendingAsyncCalls.set(callId, (_status, payload) => resolve(payload));
    port.post(toolCall(callId, name, argsJson, instance));
  });
}

/** Output after this belongs to `run` (start-up output when none); the ring carries the switch in order. */
function setRun(run: { id: string; runId: string } | undefined): void {
  currentRun = run;
  outputRing?.write(OUTPUT_KIND.mark, new TextEncoder().encode(JSON.stringify(run ?? { id: 'init', runId: 'init' })));
}

async function execute(id: string, runId: string, code: string): Promise<void> {
  setRun({ id, runId });
  if (interrupt) Atomics.store(interrupt, 0, 0);
  try {
    const res = runner!.run!(code, transport === 'jspi') as { toJs(): unknown; get(i: number): unknown; destroy(): void };
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
    stdout.flush();
    stderr.flush();
    if (ok) reply(id, { value: toPlain(payload), memoryBytes: heapBytes() });
    else fail(id, toPlain(payload) as PythonErrorInfo);
  } catch (e) {
    stdout.flush();
    stderr.flush();
    fail(id, jsError(e), isFatal(e));
  } finally {
    setRun(undefined);
    // The last call_tool answer of the run may still hold the shared region.
    channel?.release();
  }
}

async function install(id: string, spec: { source: string } | { fileName: string; bytes: Uint8Array }): Promise<void> {
  const errors: string[] = [];
  const messages: string[] = [];
  const opts = { messageCallback: (m: string) => messages.push(m), errorCallback: (m: string) => errors.push(m) };
  const before = new Set(Object.keys(py!.loadedPackages));
  if ('bytes' in spec) {
    if (!/\.whl$/.test(spec.fileName)) return fail(id, { type: 'ValueError', message: `${spec.fileName} is not a wheel (.whl)`, traceback: '' });
    const site = py!.runPython('import site; site.getsitepackages()[0]') as string;
    py!.unpackArchive(new Uint8Array(spec.bytes), 'wheel', { extractDir: site });
    py!.runPython('import importlib; importlib.invalidate_caches()');
    return reply(id, { installed: [wheelName(spec.fileName)], messages: [] });
  }
  const source = spec.source.trim();
  const isWheelRef = /\.whl(\?.*)?$/.test(source) || /^(https?|file):/.test(source) || source.startsWith('/');
  const indexed = isWheelRef ? undefined : lockPackages.get(normalizeName(source));
  if (!isWheelRef && !indexed) {
    // Not in the index: micropip can resolve it from PyPI, if micropip itself can be loaded.
    const mp = await py!.loadPackage('micropip', opts);
    if (!mp.length) {
      return fail(id, {
        type: 'PackageNotFoundError',
        message: `${source} is not in the Pyodide package index, and micropip could not be loaded to look further (${errors.join('; ') || 'no network?'})`,
        traceback: '',
      });
    }
    try {
      await py!.runPythonAsync(`import micropip\nawait micropip.install(${JSON.stringify(source)})`);
      return reply(id, { installed: [source], messages });
    } catch (e) {
      return fail(id, { type: 'PackageInstallError', message: `micropip could not install ${source}: ${(e as Error).message}`, traceback: '' });
    }
  }
  // Node reads local wheels by path; a file: URL is turned into one.
  const target = indexed ? indexed.name : isNode && source.startsWith('file:') ? decodeURIComponent(new URL(source).pathname) : source;
  const loaded = await py!.loadPackage(target, opts);
  // loadPackage resolves [] instead of rejecting when a fetch fails: report what it logged.
  const added = Object.keys(py!.loadedPackages).filter((p) => !before.has(p));
  if (!loaded.length && !added.length) {
    const already = !!indexed && before.has(indexed.name);
    if (already) return reply(id, { installed: [], messages: [`${source} is already installed`] });
    return fail(id, {
      type: 'PackageInstallError',
      message: `could not install ${source}: ${errors.join('; ') || messages.join('; ') || 'loadPackage returned nothing'}`,
      traceback: '',
    });
  }
  reply(id, { installed: loaded.map((p) => p.name), messages });
}

/** Size of the WebAssembly heap in bytes (it only grows), when Pyodide exposes it. */
function heapBytes(): number | undefined {
  return (py as unknown as { _module?: { HEAPU8?: Uint8Array } } | undefined)?._module?.HEAPU8?.byteLength;
}

/** A package name as PEP 503 compares them: lower case, runs of `-`, `_`, `.` as one `-`. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

function wheelName(file: string): string {
  return file.replace(/^.*\//, '').split('-')[0]!;
}

function writeFiles(id: string, root: string, files: { path: string; data: Uint8Array; mtime?: number }[]): void {
  let bytes = 0;
  for (const f of files) {
    const full = `${root}/${f.path}`;
    py!.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
    py!.FS.writeFile(full, f.data);
    if (f.mtime !== undefined) py!.FS.utime(full, f.mtime, f.mtime);
    bytes += f.data.byteLength;
  }
  if (root === '/armature/lib') {
    // Regenerated modules replace old ones: forget cached imports so the next import sees them.
    py!.runPython('import importlib, sys\nimportlib.invalidate_caches()\nfor _m in [m for m in sys.modules if m == "tools" or m.startswith("tools.")]:\n    del sys.modules[_m]');
  }
  reply(id, { count: files.length, bytes });
}

function readChanged(id: string, root: string, known: Record<string, number>, maxBytes: number): void {
  const FS = py!.FS;
  const result: ReadChangedResult = { files: [], deleted: [], skipped: [] };
  const present = new Set<string>();
  let total = 0;
  const walk = (dir: string, rel: string) => {
    for (const name of FS.readdir(dir) as string[]) {
      if (name === '.' || name === '..') continue;
      const full = `${dir}/${name}`;
      const path = rel ? `${rel}/${name}` : name;
      const st = FS.stat(full);
      if (FS.isDir(st.mode)) walk(full, path);
      else if (FS.isFile(st.mode)) {
        present.add(path);
        const mtime = st.mtime instanceof Date ? st.mtime.getTime() : Number(st.mtime);
        if (known[path] !== undefined && Math.abs(known[path]! - mtime) < 1) continue;
        if (total + st.size > maxBytes) {
          result.skipped.push(path);
          continue;
        }
        total += st.size;
        result.files.push({ path, data: FS.readFile(full) as Uint8Array, mtime });
      }
    }
  };
  walk(root, '');
  result.deleted = Object.keys(known).filter((p) => !present.has(p));
  reply(id, result, result.files.map((f) => f.data.buffer as ArrayBuffer));
}

async function handle(msg: HostMessage): Promise<void> {
  if (msg.type === 'init') return init(msg);
  if (msg.type === 'tool-result') {
    pendingAsyncCalls.get(msg.callId)?.(msg.status, msg.payload);
    pendingAsyncCalls.delete(msg.callId);
    return;
  }
  if (!py || !runner) return fail(msg.id, { type: 'RuntimeNotReady', message: 'the Python runtime is not initialized', traceback: '' });
  switch (msg.type) {
    case 'execute':
      return execute(msg.id, msg.runId, msg.code);
    case 'install':
      return install(msg.id, msg.spec);
    case 'list-packages': {
      const list = runner.installed!() as { toJs(): [string, string][]; destroy(): void };
      const pairs = list.toJs();
      list.destroy();
      return reply(msg.id, pairs.map(([name, version]) => ({ name, version })));
    }
    case 'reset':
      runner.reset!();
      return reply(msg.id, null);
    case 'write-files':
      return writeFiles(msg.id, msg.root, msg.files);
    case 'read-changed':
      return readChanged(msg.id, msg.root, msg.known, msg.maxBytes);
    case 'memory':
      return reply(msg.id, { wasmHeapBytes: heapBytes() ?? null });
  }
}

// Requests run one at a time in arrival order, except tool answers, which a waiting run needs now.
let chain: Promise<void> = Promise.resolve();
port.listen((raw) => {
  const parsed = parseMessage(HostMessageSchema, raw);
  if (!parsed.ok) {
    const id = typeof raw === 'object' && raw && 'id' in raw ? String((raw as { id: unknown }).id) : 'unknown';
    return fail(id, { type: 'ProtocolError', message: parsed.error, traceback: '' });
  }
  const msg = parsed.value;
  if (msg.type === 'tool-result') {
    void handle(msg);
    return;
  }
  chain = chain.then(() =>
    handle(msg).catch((e) => {
      fail(msg.id, jsError(e), isFatal(e));
    }),
  );
});
