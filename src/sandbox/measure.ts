/**
 * An estimate of how many bytes a value takes once structured-cloned, for platforms where the
 * sender cannot see the serialized size (a browser's `postMessage`). It walks the value without
 * recursion and stops as soon as the estimate passes the limit, so measuring a huge value is cheap.
 */

/** Bytes counted per value besides its payload (tags, lengths, keys' framing). */
const OVERHEAD = 8;

/**
 * The estimated cloned size of `value` in bytes, or a number above `limit` as soon as it is
 * known to exceed it. Strings count one byte per UTF-16 unit, binary data its byte length.
 */
export function measureClone(value: unknown, limit: number): number {
  let total = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    if (total > limit) return total;
    const v = stack.pop();
    total += OVERHEAD;
    if (typeof v === 'string') total += v.length;
    else if (typeof v !== 'object' || v === null) continue;
    else if (seen.has(v)) continue;
    else {
      seen.add(v);
      if (ArrayBuffer.isView(v)) total += v.byteLength;
      else if (v instanceof ArrayBuffer) total += v.byteLength;
      else if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
      else if (v instanceof Set) for (const x of v) stack.push(x);
      else if (v instanceof Date || v instanceof RegExp) total += 16;
      else {
        for (const key of Object.keys(v)) {
          total += key.length;
          stack.push((v as Record<string, unknown>)[key]);
          if (total > limit) return total;
        }
      }
    }
  }
  return total;
}
