/**
 * Makes any value safe to `postMessage` and to serialize as JSON, so a `DataCloneError` never
 * reaches a caller. Every value crossing the worker boundary passes through here, and this
 * function itself never throws. The rules:
 *
 * | value | becomes |
 * |---|---|
 * | string, boolean, null, finite number | itself |
 * | `undefined` | omitted in objects, `null` in arrays and at the top (as JSON does); with `undefinedAs: 'null'` (values from Python, where `None` arrives as `undefined`) `null` everywhere |
 * | `NaN`, `Infinity`, `-Infinity` | the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
 * | BigInt within ±(2^53 − 1) | a number |
 * | BigInt beyond that (a huge int, e.g. Python's `2**70`) | its decimal string, e.g. `"1180591620717411303424"` |
 * | function | `"[function name]"` |
 * | symbol | `"[symbol description]"` |
 * | Pyodide proxy (PyProxy, callable or not) | `"[PyProxy <python type>: <str(obj), 200 chars at most>]"`; the proxy is destroyed (`destroyProxies`) |
 * | JS `Proxy` and other objects whose properties cannot be read (a trap or getter throws) | `"[unreadable <constructor>: <error message>]"` |
 * | Date | ISO-8601 string (`"[invalid date]"` if invalid) |
 * | Map | plain object with `String(key)` keys |
 * | Set | array |
 * | Uint8Array / ArrayBuffer / SharedArrayBuffer / DataView | `{ "$bytes": "<base64>" }` |
 * | other typed arrays | array of numbers (BigInt64 elements by the BigInt rule, NaN by the NaN rule) |
 * | Error | `{ name, message }` |
 * | RegExp; boxed Number/String/Boolean | `"/source/flags"`; the primitive |
 * | Promise, WeakMap, WeakSet, WeakRef (no data to copy) | `"[Promise]"`, `"[WeakMap]"`, … |
 * | a cycle (an object that contains itself) | `"[circular]"` at the point it recurs |
 * | nesting deeper than `maxDepth` | `"[max depth]"` |
 * | any other object (class instances, JS objects reached through Pyodide) | its own enumerable string-keyed properties |
 *
 * Shared (non-cyclic) references are copied where they occur.
 */

/** Options of {@link ensureStructuredCloneable}. */
export interface CloneSafetyOptions {
  /** Deepest nesting kept. Default: 100. */
  maxDepth?: number;
  /** How `undefined` is kept: `'json'` (omitted in objects, `null` in arrays) or `'null'` (always `null`). Default: `'json'`. */
  undefinedAs?: 'json' | 'null';
  /** Destroy the Pyodide proxies met on the way (they hold Python objects alive). Default: true. */
  destroyProxies?: boolean;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const NO_DATA = ['Promise', 'WeakMap', 'WeakSet', 'WeakRef'] as const;

function isPyProxy(v: object): v is { type: string; toString(): string; destroy(): void } {
  // Duck-typed so this file needs no Pyodide import (it also runs on the host). Reading these
  // fields can itself throw (a JS Proxy with a throwing `get` trap): the caller catches that.
  const p = v as { type?: unknown; destroy?: unknown; toJs?: unknown };
  return typeof p.destroy === 'function' && typeof p.toJs === 'function' && typeof p.type === 'string';
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function constructorName(o: object): string {
  try {
    return (Object.getPrototypeOf(o) as { constructor?: { name?: string } } | null)?.constructor?.name || 'Object';
  } catch {
    return 'Object';
  }
}

function describeProxy(p: { type: string; toString(): string; destroy(): void }, destroy: boolean): string {
  let repr: string;
  try {
    repr = p.toString();
  } catch {
    repr = '?';
  }
  const type = p.type;
  if (destroy) {
    try {
      p.destroy();
    } catch {
      // Already destroyed or borrowed: nothing to release.
    }
  }
  return `[PyProxy ${type}: ${repr.length > 200 ? `${repr.slice(0, 200)}…` : repr}]`;
}

/** A copy of `value` that is structured-cloneable and JSON-safe, by the rules above. Never throws. */
export function ensureStructuredCloneable(value: unknown, options: CloneSafetyOptions = {}): unknown {
  const maxDepth = options.maxDepth ?? 100;
  const undefinedAsNull = options.undefinedAs === 'null';
  const destroy = options.destroyProxies ?? true;
  const path = new Set<object>();
  const inArray = (c: unknown) => (c === undefined ? null : c);

  const convertObject = (o: object, depth: number): unknown => {
    if (isPyProxy(o)) return describeProxy(o, destroy);
    if (typeof o === 'function') return `[function ${(o as { name?: string }).name || 'anonymous'}]`;
    if (o instanceof Date) return Number.isNaN(o.getTime()) ? '[invalid date]' : o.toISOString();
    if (o instanceof Uint8Array) return { $bytes: base64(o) };
    if (o instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && o instanceof SharedArrayBuffer)) return { $bytes: base64(new Uint8Array(o)) };
    if (o instanceof DataView) return { $bytes: base64(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)) };
    if (ArrayBuffer.isView(o)) return Array.from(o as unknown as ArrayLike<number | bigint>, (x) => convert(x, depth + 1));
    if (o instanceof Error) return { name: String(o.name), message: String(o.message) };
    if (o instanceof RegExp) return String(o);
    if (o instanceof Number || o instanceof String || o instanceof Boolean) return convert(o.valueOf(), depth);
    for (const kind of NO_DATA) {
      const ctor = (globalThis as Record<string, unknown>)[kind];
      if (typeof ctor === 'function' && o instanceof ctor) return `[${kind}]`;
    }
    if (depth >= maxDepth) return '[max depth]';
    if (path.has(o)) return '[circular]';
    path.add(o);
    try {
      if (Array.isArray(o) || o instanceof Set) return Array.from(o as Iterable<unknown>, (x) => inArray(convert(x, depth + 1)));
      const out: Record<string, unknown> = {};
      const entries: Iterable<[unknown, unknown]> = o instanceof Map ? o.entries() : Object.entries(o);
      for (const [k, x] of entries) {
        const c = convert(x, depth + 1);
        if (c !== undefined) out[String(k)] = c;
      }
      return out;
    } finally {
      path.delete(o);
    }
  };

  const convert = (v: unknown, depth: number): unknown => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        return Number.isFinite(v) ? v : String(v);
      case 'bigint':
        return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v.toString();
      case 'undefined':
        return undefinedAsNull ? null : undefined;
      case 'symbol':
        return `[symbol ${v.description ?? ''}]`;
    }
    if (v === null) return null;
    // Objects and functions (callable PyProxies are functions): any read may run foreign code
    // (Proxy traps, getters, Python __repr__), so a failure becomes a placeholder, never a throw.
    try {
      return convertObject(v as object, depth);
    } catch (e) {
      return `[unreadable ${constructorName(v as object)}: ${String((e as Error)?.message ?? e).slice(0, 200)}]`;
    }
  };

  return inArray(convert(value, 0));
}
