/**
 * What Python may reach inside a confined worker (every browser worker; in Node the worker of the
 * confined child process). Pyodide gives Python `import js` (the worker's whole global scope) and
 * `import pyodide_js` (Pyodide's API, with its file system); through them Python could read the
 * host's files and environment, start processes, open IndexedDB, fetch any URL or message the page.
 * After start-up and before any user code:
 * - `js` becomes a null-prototype object holding only ECMAScript classes, timers, text and URL
 *   helpers, the fetch classes and a `fetch` that obeys the network policy;
 * - `pyodide_js` becomes a null-prototype object holding only what Pyodide's own Python code
 *   imports from it (the event loop's `_api.scheduleCallback` and one flag of `_api.config`, `abortSignalAny`,
 *   `loadedPackages`, `version`): no `FS`, no `_module`, no `runPython`, no NODEFS;
 * - modules already imported that hold the old ones get the new ones, and modules that imported
 *   names from them (`pyodide.http`, `pyodide.code`) are forgotten so they import again;
 * - the worker's global scope loses the network, storage and messaging (browser: the lockdown of
 *   `src/sandbox/lockdown.ts`; Node: `fetch`, `WebSocket`, `EventSource`, `BroadcastChannel`, and
 *   `process` replaced by a stub with no built-in modules, no environment and no exit).
 * This is one layer: code generation from strings is off underneath (Node's flag, the browser
 * worker's CSP), so no JavaScript function's `.constructor` or `run_js` evaluates anything, and in
 * Node the child process runs under the permission model with an empty environment.
 */
import type { PyodideInterface } from 'pyodide';
import { lockdownWorkerScope } from '../../../src/sandbox/lockdown.ts';
import { networkAllows } from '../../../src/sandbox/network-policy.ts';
import type { Fetched, FetchRequest, NetworkPolicy } from '../../../src/sandbox/protocol.ts';
import { isNode } from './port.ts';
import SWAP_JS_MODULES from '../python/swap_js_modules.py';

/** What the confinement needs to know. */
export interface ConfineOptions {
  /** What Python's `fetch` may reach (checked here, and again by the host that performs it). */
  network: NetworkPolicy;
  /** Performs a request the policy allows, through the host. */
  fetchViaHost(req: Omit<FetchRequest, 'type' | 'id'>): Promise<Fetched>;
  /** URLs of Pyodide's own files (its lock file's packages and core files) that its loader may fetch directly. */
  ownUrls: ReadonlySet<string>;
}

/** URLs the loader may fetch once, for an install the host asked for (a wheel by URL). */
const allowedOnce = new Set<string>();

/** Lets Pyodide's loader fetch `url` during a host-initiated install. Returns the revocation. */
export function allowInstallUrl(url: string): () => void {
  allowedOnce.add(url);
  return () => allowedOnce.delete(url);
}

/** Marks a `process` whose `binding` is shimmed already. */
const SHIMMED = Symbol('armature.bindingShimmed');

/**
 * Node, before Pyodide loads in a process under the permission model: NODEFS reads
 * `process.binding('constants').fs` at start-up, and the permission model refuses
 * `process.binding`. The constants are also public as `fs.constants`.
 */
export function shimProcessBinding(): void {
  const proc = globalThis.process as (NodeJS.Process & { permission?: unknown; binding?: (name: string) => unknown; [SHIMMED]?: true }) | undefined;
  if (!proc?.permission || typeof proc.getBuiltinModule !== 'function' || proc[SHIMMED]) return;
  proc[SHIMMED] = true;
  const fs = proc.getBuiltinModule('node:fs') as typeof import('node:fs');
  const os = proc.getBuiltinModule('node:os') as typeof import('node:os');
  const original = proc.binding;
  proc.binding = (name: string) => {
    if (name === 'constants') return { fs: fs.constants, os: os.constants };
    return original?.call(proc, name);
  };
}

type Body = string | Uint8Array | undefined;

/** The body of a fetch's `init` (or Request) as bytes or text; anything else is refused. */
async function bodyOf(init: Record<string, unknown> | undefined, request: Request | undefined): Promise<Body> {
  const b = init?.body;
  if (b === undefined || b === null) {
    if (request && request.method !== 'GET' && request.method !== 'HEAD' && request.body) return new Uint8Array(await request.arrayBuffer());
    return undefined;
  }
  if (typeof b === 'string') return b;
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  throw new TypeError('fetch: a body must be text or bytes here');
}

function headersOf(init: Record<string, unknown> | undefined, request: Request | undefined): [string, string][] {
  const out: [string, string][] = request ? [...request.headers.entries()] : [];
  const h = init?.headers;
  if (h instanceof Headers) out.push(...h.entries());
  else if (Array.isArray(h)) for (const [k, v] of h as [unknown, unknown][]) out.push([String(k), String(v)]);
  else if (h && typeof h === 'object') for (const [k, v] of Object.entries(h)) out.push([k, String(v)]);
  return out;
}

/** A real `Response` over a body the host fetched, so `pyodide.http.pyfetch` works unchanged. */
function responseOf(r: Fetched): Response {
  const nullBody = r.status === 204 || r.status === 205 || r.status === 304;
  const res = new Response(nullBody ? null : (r.body as BodyInit), { status: r.status < 200 || r.status > 599 ? 502 : r.status, statusText: r.statusText, headers: r.headers });
  Object.defineProperty(res, 'url', { value: r.url });
  return res;
}

/**
 * The only `fetch` Python gets (and Pyodide's loader, through the global): Pyodide's own files
 * and installs the host asked for go straight out; everything else must be allowed by the network
 * policy and is performed by the host.
 */
function policyFetch(o: ConfineOptions, realFetch: typeof fetch | undefined): (input: unknown, init?: Record<string, unknown>) => Promise<Response> {
  return async (input, init) => {
    const request = typeof Request === 'function' && input instanceof Request ? input : undefined;
    const raw = request ? request.url : input instanceof URL ? input.href : String(input);
    let url: string;
    try {
      url = new URL(raw, typeof location === 'undefined' ? undefined : location.href).href;
    } catch {
      throw new TypeError(`fetch: ${JSON.stringify(raw.slice(0, 200))} is not a URL`);
    }
    const method = String((init?.method as string | undefined) ?? request?.method ?? 'GET').toUpperCase();
    if (realFetch && method === 'GET' && (o.ownUrls.has(url) || allowedOnce.has(url))) return realFetch(url, init?.integrity ? { integrity: String(init.integrity) } : undefined);
    if (!networkAllows(o.network, url)) {
      const allowed = o.network === 'none' ? 'no origin' : o.network.join(', ');
      throw Object.assign(new TypeError(`fetch of ${url.slice(0, 200)} refused: the network policy allows ${allowed}`), { code: 'NETWORK_DENIED' });
    }
    const body = await bodyOf(init, request);
    const fetched = await o.fetchViaHost(body === undefined ? { url, method, headers: headersOf(init, request) } : { url, method, headers: headersOf(init, request), body });
    return responseOf(fetched);
  };
}

/** The `js` module Python gets: no global scope, only what is listed here. */
function safeJs(o: ConfineOptions, realFetch: typeof fetch | undefined): Record<string, unknown> {
  const g = globalThis as Record<string, unknown>;
  const out: Record<string, unknown> = Object.create(null);
  const names = [
    'Object', 'Array', 'JSON', 'Math', 'Date', 'Promise', 'Error', 'TypeError', 'RangeError', 'Map', 'Set', 'WeakMap', 'Number', 'String', 'Boolean', 'Proxy',
    'BigInt', 'Symbol', 'ArrayBuffer', 'DataView', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array',
    'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Uint8ClampedArray', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval',
    'queueMicrotask', 'structuredClone', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'atob', 'btoa', 'Request', 'Response', 'Headers',
    'AbortController', 'AbortSignal', 'Blob', 'performance', 'console',
  ];
  // Plain functions of the global scope must be called on it (browsers throw "Illegal invocation").
  const bound = new Set(['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'structuredClone', 'atob', 'btoa']);
  const wrap = (name: string, value: unknown) => {
    if (!bound.has(name) || typeof value !== 'function') return value;
    const fn = value as (...a: unknown[]) => unknown;
    // A wrapper of the same name (bind would rename it "bound setTimeout").
    return { [name]: (...a: unknown[]) => fn.apply(globalThis, a) }[name];
  };
  for (const name of names) {
    // `in` reads no value: Node's `Request`, `Response` and `Headers` are getters that load its
    // fetch implementation (~50 ms in a fresh worker), so each is read when Python first asks.
    if (!(name in g)) continue;
    let value: unknown;
    let read = false;
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (!read) [value, read] = [wrap(name, g[name]), true];
        return value;
      },
      set: (v: unknown) => void ([value, read] = [v, true]),
    });
  }
  out.fetch = policyFetch(o, realFetch);
  // Not frozen: importing a submodule (`import js.x`) sets an attribute on its parent. Python
  // changing its own view of these objects reaches nothing new.
  return out;
}

/** The `pyodide_js` module Python gets: what Pyodide's own Python code imports from it, nothing more. */
function safePyodideJs(py: PyodideInterface): Record<string, unknown> {
  const api = (py as unknown as { _api?: Record<string, unknown> })._api ?? {};
  const out = Object.create(null) as Record<string, unknown>;
  const inner = Object.create(null) as Record<string, unknown>;
  for (const name of ['scheduleCallback', 'abortSignalAny']) if (api[name] !== undefined) inner[name] = api[name];
  // The event loop reads one flag of the config; the config itself holds `jsglobals` (the global scope).
  const config = api.config as { enableRunUntilComplete?: boolean } | undefined;
  inner.config = Object.freeze({ enableRunUntilComplete: config?.enableRunUntilComplete ?? true });
  out._api = inner;
  out.loadedPackages = py.loadedPackages;
  out.version = py.version;
  return out;
}


/** Stub of `process` in a confined Node worker: facts Emscripten reads, no modules, no environment, no exit. */
function processStub(real: NodeJS.Process): Record<string, unknown> {
  return {
    versions: { ...real.versions },
    version: real.version,
    platform: real.platform,
    arch: real.arch,
    env: Object.freeze({}),
    argv: Object.freeze([]),
    exitCode: undefined,
    cwd: () => '/',
    hrtime: real.hrtime.bind(real),
    nextTick: real.nextTick.bind(real),
    emitWarning: () => undefined,
    on: () => undefined,
    exit: (code?: number) => {
      throw Object.assign(new Error(`process.exit(${code ?? ''}) is not available to Python`), { code: 'EXIT_REFUSED' });
    },
  };
}

/** Applies the confinement to a started interpreter, before any user code runs. */
export function confinePython(py: PyodideInterface, o: ConfineOptions): void {
  const g = globalThis as Record<string, unknown>;
  const realFetch = typeof g.fetch === 'function' ? (g.fetch as typeof fetch).bind(globalThis) : undefined;
  const js = safeJs(o, realFetch);
  py.registerJsModule('js', js);
  py.registerJsModule('pyodide_js', safePyodideJs(py));
  py.runPython(SWAP_JS_MODULES);
  if (isNode) {
    for (const name of ['fetch', 'WebSocket', 'EventSource', 'BroadcastChannel', 'XMLHttpRequest', 'WebSocketStream']) delete g[name];
    g.process = processStub(g.process as NodeJS.Process);
  } else {
    lockdownWorkerScope();
  }
  // Pyodide's loader fetches through the global: the policy fetch, which lets its own files through.
  g.fetch = js.fetch;
}
