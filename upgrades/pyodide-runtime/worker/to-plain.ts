/**
 * Python values to plain data inside the worker: Pyodide's `toJs`, then the
 * `ensureStructuredCloneable` rules, and every proxy made on the way released.
 */
import { ensureStructuredCloneable } from '../protocol/clone-safety.ts';

type ConvertibleProxy = { toJs: (o: object) => unknown; destroy?: () => void };

/**
 * Converts a Python result to plain data and releases every proxy made on the way. Dicts become
 * objects, `None` becomes `null`; what JavaScript cannot hold follows the ensureStructuredCloneable
 * rules. `jsSafe` is the runner's `js_safe` (dict keys JavaScript can hold). Never throws: a value
 * that cannot be converted at all is described instead.
 */
export function toPlain(value: unknown, jsSafe: (proxy: unknown) => unknown): unknown {
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
      const safe = jsSafe(proxy) as ConvertibleProxy;
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
