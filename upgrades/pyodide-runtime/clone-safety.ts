/**
 * Makes any value safe to `postMessage` and to serialize as JSON, so a `DataCloneError` never
 * reaches a caller. Every value crossing the worker boundary passes through here. The rules:
 *
 * | value | becomes |
 * |---|---|
 * | string, boolean, null, finite number | itself |
 * | `undefined` | omitted in objects, `null` in arrays (as JSON does) |
 * | `NaN`, `Infinity`, `-Infinity` | the strings `"NaN"`, `"Infinity"`, `"-Infinity"` |
 * | BigInt within ±2^53 | a number |
 * | BigInt (a huge int) beyond that | its decimal string, e.g. `"123456789012345678901234567890"` |
 * | function | `"[function name]"` |
 * | symbol | `"[symbol description]"` |
 * | Pyodide proxy (PyProxy) | `"[PyProxy <python type>: <repr>]"`; the proxy is destroyed |
 * | Date | ISO-8601 string (`"[invalid date]"` if invalid) |
 * | Map | plain object with `String(key)` keys |
 * | Set | array |
 * | Uint8Array / ArrayBuffer / DataView | `{ "$bytes": "<base64>" }` |
 * | other typed arrays | array of numbers (BigInt64 elements by the BigInt rule) |
 * | Error | `{ name, message }` |
 * | a cycle (an object that contains itself) | `"[circular]"` at the point it recurs |
 * | nesting deeper than `maxDepth` (default 100) | `"[max depth]"` |
 * | any other object | its own enumerable properties |
 *
 * Shared (non-cyclic) references are copied where they occur.
 */

/** Options of {@link ensureStructuredCloneable}. */
export interface CloneSafetyOptions {
  /** Deepest nesting kept. Default: 100. */
  maxDepth?: number;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function isPyProxy(v: object): v is { type: string; toString(): string; destroy(): void } {
  // Duck-typed so this file needs no Pyodide import (it also runs on the host).
  const p = v as { type?: unknown; destroy?: unknown; toJs?: unknown };
  return typeof p.destroy === 'function' && typeof p.toJs === 'function' && typeof p.type === 'string';
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A copy of `value` that is structured-cloneable and JSON-safe, by the rules above. */
export function ensureStructuredCloneable(value: unknown, options: CloneSafetyOptions = {}): unknown {
  const maxDepth = options.maxDepth ?? 100;
  const path = new Set<object>();

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
        return undefined;
      case 'function':
        return `[function ${v.name || 'anonymous'}]`;
      case 'symbol':
        return `[symbol ${v.description ?? ''}]`;
    }
    if (v === null) return null;
    const o = v as object;
    if (isPyProxy(o)) {
      let repr: string;
      try {
        repr = o.toString();
      } catch {
        repr = '?';
      }
      const type = o.type;
      try {
        o.destroy();
      } catch {
        // Already destroyed or borrowed: nothing to release.
      }
      return `[PyProxy ${type}: ${repr.length > 200 ? `${repr.slice(0, 200)}…` : repr}]`;
    }
    if (o instanceof Date) return Number.isNaN(o.getTime()) ? '[invalid date]' : o.toISOString();
    if (o instanceof Uint8Array) return { $bytes: base64(o) };
    if (o instanceof ArrayBuffer) return { $bytes: base64(new Uint8Array(o)) };
    if (o instanceof DataView) return { $bytes: base64(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)) };
    if (ArrayBuffer.isView(o)) return Array.from(o as unknown as ArrayLike<number | bigint>, (x) => convert(x, depth + 1));
    if (o instanceof Error) return { name: o.name, message: o.message };
    if (depth >= maxDepth) return '[max depth]';
    if (path.has(o)) return '[circular]';
    path.add(o);
    try {
      if (Array.isArray(o) || o instanceof Set) {
        return Array.from(o as Iterable<unknown>, (x) => {
          const c = convert(x, depth + 1);
          return c === undefined ? null : c;
        });
      }
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

  const out = convert(value, 0);
  return out === undefined ? null : out;
}
