/**
 * The worker side of a confined worker, in the agent's own realm: it loads the agent's module,
 * builds the `ctx` the agent gets (only the host's capabilities, each a message to the host, and
 * `on` for delivered events), installs the policy-checked `fetch` and a `console` that forwards
 * to the host, and answers `call`s. It imports nothing platform-specific: the Node child and the
 * browser worker each give it a {@link ScopeHost}.
 */
import { MAX_NAME_LENGTH } from '../kernel/bounded.ts';
import { networkAllows } from './network-policy.ts';
import type { Fetched, HostMessage, InitMessage, LogLevel, WireError, WorkerMessage } from './protocol.ts';

/** Longest log line a worker sends, in characters (longer lines are cut). */
export const MAX_LOG_CHARS = 8 * 1024;

/** What the scope needs from the platform. */
export interface ScopeHost {
  /**
   * Sends a message to the host. Throws when the message cannot be sent: too large (an error whose
   * `code` is `MESSAGE_TOO_LARGE`) or not cloneable.
   */
  post(msg: WorkerMessage): void;
  /** Imports the agent's module (the platform confines what it may import) and returns its namespace. */
  load(): Promise<object>;
}

/** The running scope: the platform hands it every validated host message after `init`. */
export interface AgentScope {
  receive(msg: Exclude<HostMessage, InitMessage>): void;
}

type Settle = { resolve(v: unknown): void; reject(e: unknown): void };
type Handler = (payload: unknown) => unknown;

const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);
const isObject = (v: unknown): v is Record<string, unknown> => (typeof v === 'object' && v !== null) || typeof v === 'function';

/** `e` as it crosses the boundary; never throws, whatever the agent threw. */
export function toWireError(e: unknown): WireError {
  try {
    if (isObject(e)) {
      const out: WireError = { name: String(e.name ?? 'Error').slice(0, 200), message: String(e.message ?? '').slice(0, 64 * 1024) };
      if (typeof e.stack === 'string') out.stack = e.stack.slice(0, 64 * 1024);
      if (typeof e.code === 'string') out.code = e.code.slice(0, 200);
      return out;
    }
    return { name: 'Error', message: `the code threw a ${typeof e}: ${String(e).slice(0, 1000)}` };
  } catch {
    return { name: 'Error', message: 'the code threw a value that could not be described' };
  }
}

/** The error a capability's failure becomes for the agent: its message and code, not the host's stack. */
export function capabilityError(e: unknown): WireError {
  const w = toWireError(e);
  return w.code === undefined ? { name: w.name, message: w.message } : { name: w.name, message: w.message, code: w.code };
}

/** An Error for the agent, with a stable `code`. */
function coded(message: string, code: string, name = 'Error'): Error {
  const e = name === 'TypeError' ? new TypeError(message) : new Error(message);
  return Object.assign(e, { code });
}

/** Text of console arguments, cut to {@link MAX_LOG_CHARS}. */
function format(args: unknown[]): string {
  let out = '';
  for (const a of args) {
    if (out.length >= MAX_LOG_CHARS) break;
    let s: string;
    try {
      s = typeof a === 'string' ? a : a instanceof Error ? `${a.name}: ${a.message}` : (JSON.stringify(a) ?? String(a));
    } catch {
      s = Object.prototype.toString.call(a);
    }
    out += (out ? ' ' : '') + s.slice(0, MAX_LOG_CHARS);
  }
  return out.slice(0, MAX_LOG_CHARS);
}

/** A read-only `Headers`-like view over header pairs. */
function headersOf(pairs: [string, string][]) {
  const lower = pairs.map(([k, v]) => [k.toLowerCase(), v] as [string, string]);
  return Object.freeze({
    get: (name: string) => {
      const n = String(name).toLowerCase();
      const all = lower.filter(([k]) => k === n).map(([, v]) => v);
      return all.length ? all.join(', ') : null;
    },
    has: (name: string) => lower.some(([k]) => k === String(name).toLowerCase()),
    entries: () => lower.map(([k, v]) => [k, v] as [string, string])[Symbol.iterator](),
    forEach: (fn: (value: string, key: string) => void) => lower.forEach(([k, v]) => fn(v, k)),
  });
}

/** The response `fetch` resolves to: the usual reading methods over a body already fetched. */
function responseOf(r: Fetched) {
  const text = () => new TextDecoder().decode(r.body);
  return Object.freeze({
    ok: r.status >= 200 && r.status < 300,
    status: r.status,
    statusText: r.statusText,
    url: r.url,
    headers: headersOf(r.headers),
    text: async () => text(),
    json: async () => JSON.parse(text()) as unknown,
    bytes: async () => r.body.slice(),
    arrayBuffer: async () => r.body.slice().buffer,
  });
}

/**
 * Starts the scope: installs `fetch` and `console` in this realm's global scope, loads the module,
 * and reports `ready` (with what `describe()` returns) or `load-failed`.
 */
export function startAgentScope(host: ScopeHost, init: InitMessage): AgentScope {
  const pending = new Map<string, Settle>();
  const handlers = new Map<string, Set<Handler>>();
  let seq = 0;
  let ns: Record<string, unknown> | undefined;

  /** Sends a request to the host and waits for its answer; a message that cannot be sent rejects. */
  const ask = (build: (id: string) => WorkerMessage): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = `w${++seq}`;
      try {
        host.post(build(id));
      } catch (e) {
        reject(e);
        return;
      }
      pending.set(id, { resolve, reject });
    });

  const log = (level: LogLevel, args: unknown[]) => {
    try {
      host.post({ type: 'log', id: 'log', level, text: format(args) });
    } catch {
      // A log line that cannot be sent is dropped: logging never breaks the agent's code.
    }
  };

  const listen = (name: string, on: boolean) => {
    try {
      host.post({ type: 'listen', id: 'listen', name, on });
    } catch {
      // Only a worker on its way out cannot send: its handlers go with it.
    }
  };

  const ctx: Record<string, unknown> = Object.create(null);
  for (const name of init.capabilities) {
    ctx[name] = (...args: unknown[]) => ask((id) => ({ type: 'cap', id, name, args }));
  }
  ctx.on = (name: string, handler: Handler) => {
    if (typeof name !== 'string' || typeof handler !== 'function') throw new TypeError('ctx.on(name, handler) takes an event name and a function');
    if (name.length === 0 || name.length > MAX_NAME_LENGTH) throw new TypeError(`ctx.on: event names are 1 to ${MAX_NAME_LENGTH} characters, got ${name.length}`);
    let set = handlers.get(name);
    if (!set) {
      handlers.set(name, (set = new Set()));
      // The host delivers only the names listened to: no message per event nobody handles.
      listen(name, true);
    }
    set.add(handler);
    return () => {
      if (!set.delete(handler) || set.size > 0 || handlers.get(name) !== set) return;
      handlers.delete(name);
      listen(name, false);
    };
  };
  Object.freeze(ctx);

  const policyFetch = async (input: unknown, options: Record<string, unknown> = {}) => {
    const raw = typeof input === 'string' ? input : isObject(input) && typeof input.href === 'string' ? input.href : isObject(input) ? input.url : undefined;
    let url: string;
    try {
      url = new URL(String(raw)).href;
    } catch {
      throw coded(`fetch: ${JSON.stringify(String(raw).slice(0, 200))} is not an absolute URL`, 'INVALID_URL', 'TypeError');
    }
    if (!networkAllows(init.network, url)) {
      const allowed = init.network === 'none' ? 'no origin' : init.network.join(', ');
      throw coded(`fetch: ${init.name} may not reach ${url.slice(0, 200)}: its network policy allows ${allowed}`, 'NETWORK_DENIED', 'TypeError');
    }
    const headers: [string, string][] = [];
    const h = options.headers;
    if (Array.isArray(h)) for (const [k, v] of h as [unknown, unknown][]) headers.push([String(k), String(v)]);
    else if (isObject(h) && typeof h.entries === 'function') for (const [k, v] of (h.entries as () => Iterable<[unknown, unknown]>)()) headers.push([String(k), String(v)]);
    else if (isObject(h)) for (const k of Object.keys(h)) headers.push([k, String(h[k])]);
    const b = options.body;
    const body =
      b === undefined || b === null ? undefined : typeof b === 'string' ? b : b instanceof Uint8Array ? b : b instanceof ArrayBuffer ? new Uint8Array(b) : undefined;
    if (b !== undefined && b !== null && body === undefined) throw coded('fetch: body must be a string, a Uint8Array or an ArrayBuffer', 'INVALID_BODY', 'TypeError');
    const method = typeof options.method === 'string' ? options.method : 'GET';
    const fetched = (await ask((id) => (body === undefined ? { type: 'fetch', id, url, method, headers } : { type: 'fetch', id, url, method, headers, body }))) as Fetched;
    return responseOf(fetched);
  };
  const g = globalThis as Record<string, unknown>;
  g.fetch = policyFetch;
  g.console = Object.freeze({
    log: (...a: unknown[]) => log('log', a),
    info: (...a: unknown[]) => log('info', a),
    warn: (...a: unknown[]) => log('warn', a),
    error: (...a: unknown[]) => log('error', a),
    debug: (...a: unknown[]) => log('debug', a),
  });

  /** Posts a call's outcome; a value that cannot cross becomes an error naming why. */
  const answer = (id: string, outcome: { ok: true; value: unknown } | { ok: false; error: WireError }) => {
    try {
      host.post(outcome.ok ? { type: 'result', id, ok: true, value: outcome.value } : { type: 'result', id, ok: false, error: outcome.error });
    } catch (e) {
      const error = toWireError(e);
      const tooLarge = error.code === 'MESSAGE_TOO_LARGE';
      const message = tooLarge
        ? `the ${outcome.ok ? 'result' : 'error'} is too large to send: ${error.message}`
        : `the result could not be sent to the host (${error.message}): return plain data (objects, arrays, strings, numbers, booleans, null, Uint8Array)`;
      host.post({ type: 'result', id, ok: false, error: { name: tooLarge ? 'RangeError' : 'TypeError', message, code: tooLarge ? 'MESSAGE_TOO_LARGE' : 'NOT_CLONEABLE' } });
    }
  };

  const resolvePath = (path: string[]): { fn: (...a: unknown[]) => unknown; self: unknown } | string => {
    const root = ns!;
    const first = path[0]!;
    const dflt = root.default;
    let cur: unknown = !hasOwn(root, first) && isObject(dflt) && hasOwn(dflt, first) ? dflt : root;
    let self: unknown;
    for (const seg of path) {
      if (!isObject(cur) || !hasOwn(cur, seg)) return `the module has no export ${path.join('.')}`;
      self = cur;
      cur = cur[seg];
    }
    if (typeof cur !== 'function') return `${path.join('.')} is a ${cur === null ? 'null' : typeof cur}, not a function`;
    return { fn: cur as (...a: unknown[]) => unknown, self };
  };

  const call = (id: string, path: string[], args: unknown[]) => {
    let target: ReturnType<typeof resolvePath>;
    try {
      target = resolvePath(path);
    } catch (e) {
      return answer(id, { ok: false, error: toWireError(e) });
    }
    if (typeof target === 'string') return answer(id, { ok: false, error: { name: 'TypeError', message: target, code: 'NO_SUCH_EXPORT' } });
    const { fn, self } = target;
    // Started in a microtask so a synchronous throw becomes a rejection like an async one.
    Promise.resolve()
      .then(() => fn.apply(self, [...args, ctx]))
      .then(
        (value) => answer(id, { ok: true, value }),
        (e) => answer(id, { ok: false, error: toWireError(e) }),
      );
  };

  /** Runs the handlers of one event; says `delivered` once each has returned and what it returned has settled (the host bounds that time). */
  const deliver = (id: string, name: string, payload: unknown) => {
    const failed = (e: unknown) => log('error', [`ctx.on(${JSON.stringify(name)}) handler failed:`, toWireError(e).message]);
    const running: Promise<unknown>[] = [];
    for (const h of handlers.get(name) ?? []) {
      try {
        const r = h(payload);
        if (isObject(r) && typeof r.then === 'function') running.push(Promise.resolve(r as unknown as Promise<unknown>).then(undefined, failed));
      } catch (e) {
        failed(e);
      }
    }
    const done = () => {
      try {
        host.post({ type: 'delivered', id });
      } catch {
        // Only a worker on its way out cannot send.
      }
    };
    if (running.length) void Promise.all(running).then(done);
    else done();
  };

  void (async () => {
    try {
      // From here on the time is the agent's code's own (its top level), not the worker's start-up.
      host.post({ type: 'loading', id: init.id });
      ns = (await host.load()) as Record<string, unknown>;
    } catch (e) {
      host.post({ type: 'load-failed', id: init.id, error: toWireError(e) });
      return;
    }
    try {
      const exports = Object.keys(ns).sort();
      const dflt = ns.default;
      const members = isObject(dflt) && typeof dflt !== 'function' ? Object.keys(dflt) : undefined;
      const toolsObj = hasOwn(ns, 'tools') ? ns.tools : members?.includes('tools') ? (dflt as Record<string, unknown>).tools : undefined;
      const tools = isObject(toolsObj) ? Object.keys(toolsObj) : undefined;
      host.post({ type: 'ready', id: init.id, exports, ...(members ? { members } : {}), ...(tools ? { tools } : {}) });
    } catch (e) {
      host.post({ type: 'load-failed', id: init.id, error: toWireError(e) });
    }
  })();

  return {
    receive(msg) {
      switch (msg.type) {
        case 'call':
          return ns ? call(msg.id, msg.path, msg.args) : answer(msg.id, { ok: false, error: { name: 'Error', message: 'the module is not loaded yet' } });
        case 'deliver':
          return deliver(msg.id, msg.name, msg.payload);
        case 'cap-result':
        case 'fetch-result': {
          const p = pending.get(msg.id);
          if (!p) return;
          pending.delete(msg.id);
          if (msg.ok) p.resolve(msg.type === 'cap-result' ? msg.value : msg.response);
          else p.reject(coded(msg.error.message, msg.error.code ?? 'CAPABILITY_FAILED', msg.error.name === 'TypeError' ? 'TypeError' : 'Error'));
          return;
        }
      }
    },
  };
}
