/**
 * Encodes JSON-like JavaScript values in CPython's `marshal` format, which `marshal.loads` turns
 * into native Python objects in C, several times faster than `json.loads` on the same data (no
 * text parsing), and with each distinct dict key sent once and referenced afterwards, so lists of
 * rows stay compact.
 *
 * Mapping: `null`/`undefined` -> None (undefined object properties are skipped, as in JSON);
 * booleans -> bool; integral numbers -> int (any size, including BigInt); other numbers -> float
 * (NaN and ±Infinity included); strings -> str; Uint8Array/ArrayBuffer -> bytes; arrays and Sets
 * -> list; plain objects and Maps (string keys) -> dict; Dates -> ISO-8601 str. Anything else
 * (functions, symbols, cycles) throws a TypeError naming the path. A byte limit stops the encoding
 * as soon as the document passes it (MarshalTooLargeError).
 */

const T_NONE = 0x4e; // N
const T_FALSE = 0x46; // F
const T_TRUE = 0x54; // T
const T_INT = 0x69; // i
const T_LONG = 0x6c; // l
const T_FLOAT = 0x67; // g (binary float)
const T_BYTES = 0x73; // s
const T_ASCII = 0x61; // a
const T_SHORT_ASCII = 0x7a; // z
const T_UNICODE = 0x75; // u
const T_LIST = 0x5b; // [
const T_DICT = 0x7b; // {
const T_NULL = 0x30; // 0 (ends a dict)
const T_SMALL_TUPLE = 0x29; // )
const T_REF = 0x72; // r
const FLAG_REF = 0x80;

/**
 * Memory to encode into instead of a private buffer (the shared-memory answer region), grown on
 * demand. When it cannot grow enough the encoder moves to a private buffer and the result is not
 * in the target.
 */
export interface MarshalTarget {
  /** A fixed-length view from offset 0 of the target (length-tracking views are ~3x slower to fill). */
  bytes: Uint8Array;
  /** Grows the target to at least `bytes` and returns the new view; undefined when it cannot. */
  grow(bytes: number): Uint8Array | undefined;
}

/** Whether TextEncoder.encodeInto accepts shared memory here (Node does, Chromium does not). */
let encodeIntoShared = true;
/** Where text is encoded on its way into shared memory when encodeInto refuses it, in pieces of PIECE characters. */
let encodeScratch: Uint8Array | undefined;
const PIECE = 64 * 1024;

/** An encoded document would pass the byte limit it was given; encoding stopped there. */
export class MarshalTooLargeError extends RangeError {
  readonly code = 'ANSWER_TOO_LARGE';
  constructor(readonly bytes: number, readonly limit: number) {
    super(`the encoded value is more than ${limit} bytes (stopped at ${bytes})`);
    this.name = 'MarshalTooLargeError';
  }
}

class Writer {
  buf: Uint8Array;
  view: DataView;
  pos = 0;
  private target: MarshalTarget | undefined;
  private readonly encoder = new TextEncoder();
  /** Room reserved at once never exceeds this: text reserves up to three bytes per character. */
  private readonly hardLimit: number;

  constructor(
    target?: MarshalTarget,
    /** Most bytes of the document; encoding stops with {@link MarshalTooLargeError} past it. */
    private readonly limit = Infinity,
  ) {
    this.hardLimit = limit * 3 + 1024;
    this.target = target;
    // Small to start: most tool results are tiny, and the buffer doubles as needed.
    this.buf = target?.bytes ?? new Uint8Array(256);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  reserve(n: number): void {
    // Checked here, where the writer grows, so a huge value stops early instead of being encoded whole.
    if (this.pos > this.limit) throw new MarshalTooLargeError(this.pos, this.limit);
    if (this.pos + n <= this.buf.length) return;
    if (this.pos + n > this.hardLimit) throw new MarshalTooLargeError(this.pos + n, this.limit);
    let size = Math.max(this.buf.length * 2, 256);
    while (size < this.pos + n) size *= 2;
    const grown = this.target?.grow(size);
    if (grown) {
      this.buf = grown;
      this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
      return;
    }
    this.target = undefined;
    const next = new Uint8Array(size);
    // All of it: a string being encoded may already lie beyond pos.
    next.set(this.buf);
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** Whether `buf` is the caller's target memory (still shared). */
  get inTarget(): boolean {
    return this.target !== undefined;
  }

  /**
   * Writes `s` as UTF-8 at `at` (reserving as it goes) and returns the byte count. Room for the
   * ASCII size is reserved first and more only if the text needs it, so a big ASCII string does
   * not grow the buffer to three times its size.
   */
  private utf8(s: string, at: number): number {
    const n = s.length;
    const base = at - this.pos;
    if (this.target && !encodeIntoShared) {
      // Encode through a small private buffer, piece by piece, copying each into the target: a
      // private buffer for the whole text would cost its page faults on every call.
      // Pieces are bounded on the input side too: Chromium copies the whole input string on
      // every encodeInto call.
      const scratch = (encodeScratch ??= new Uint8Array(3 * PIECE));
      this.reserve(base + n);
      let read = 0;
      let written = 0;
      while (read < n) {
        let end = Math.min(n, read + PIECE);
        // Never split a surrogate pair: half of one would be encoded as U+FFFD.
        const last = s.charCodeAt(end - 1);
        if (end < n && last >= 0xd800 && last <= 0xdbff) end--;
        const r = this.encoder.encodeInto(read === 0 && end === n ? s : s.substring(read, end), scratch);
        read = end;
        this.reserve(base + written + r.written + (n - read));
        this.buf.set(scratch.subarray(0, r.written), at + written);
        written += r.written;
      }
      return written;
    }
    this.reserve(base + n);
    let read = 0;
    let written = 0;
    for (;;) {
      const rest = read === 0 ? s : s.slice(read);
      let r: { read: number; written: number };
      try {
        r = this.encoder.encodeInto(rest, this.buf.subarray(at + written));
      } catch (e) {
        if (!this.target) throw e;
        encodeIntoShared = false;
        return this.utf8(s, at);
      }
      read += r.read;
      written += r.written;
      if (read >= n) return written;
      // Not ASCII: room for the worst case of what is left (encodeInto stops between code points).
      this.reserve(base + written + (n - read) * 3);
    }
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.pos++] = b;
  }

  int32(v: number): void {
    this.reserve(4);
    this.view.setInt32(this.pos, v, true);
    this.pos += 4;
  }

  /** Writes a str object; `flag` is FLAG_REF when the string should become referenceable. */
  string(s: string, flag = 0): void {
    const n = s.length;
    if (n < 64) {
      // Short strings (most keys and values) are copied by hand: cheaper than encodeInto's setup.
      this.reserve(2 + n * 3 + 3);
      const start = this.pos;
      const buf = this.buf;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[start + 2 + i] = c;
      }
      if (i === n) {
        buf[start] = T_SHORT_ASCII | flag;
        buf[start + 1] = n;
        this.pos = start + 2 + n;
        return;
      }
    }
    const start = this.pos;
    const written = this.utf8(s, start + 5);
    const ascii = written === n;
    if (ascii && n < 256) {
      this.buf[start] = T_SHORT_ASCII | flag;
      this.buf[start + 1] = n;
      this.buf.copyWithin(start + 2, start + 5, start + 5 + n);
      this.pos = start + 2 + n;
    } else {
      this.buf[start] = (ascii ? T_ASCII : T_UNICODE) | flag;
      this.view.setInt32(start + 1, written, true);
      this.pos = start + 5 + written;
    }
  }

  bytes(b: Uint8Array): void {
    this.reserve(5 + b.length);
    this.buf[this.pos++] = T_BYTES;
    this.view.setInt32(this.pos, b.length, true);
    this.pos += 4;
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** An int of any size as marshal's base-2**15 digits. */
  long(v: bigint): void {
    const negative = v < 0n;
    let mag = negative ? -v : v;
    const digits: number[] = [];
    while (mag > 0n) {
      digits.push(Number(mag & 0x7fffn));
      mag >>= 15n;
    }
    this.byte(T_LONG);
    this.int32(negative ? -digits.length : digits.length);
    this.reserve(digits.length * 2);
    for (const d of digits) {
      this.view.setUint16(this.pos, d, true);
      this.pos += 2;
    }
  }

  float(v: number): void {
    this.reserve(9);
    this.buf[this.pos++] = T_FLOAT;
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
}

/**
 * Encodes `value` (see the module comment for the mapping) for Python's `marshal.loads`. With a
 * `target` the bytes are written there when they fit (the result is then a view of it: check its
 * `buffer`); otherwise, and without one, the result is a buffer of its own.
 */
export function toMarshal(value: unknown, target?: MarshalTarget, maxBytes?: number): Uint8Array {
  return encodeDocument(value, target, undefined, maxBytes);
}

/**
 * A tool answer for Python: the tuple `(status, value, more)` in one marshal document, so that
 * one buffer carries all three and Python unpacks them with one `marshal.loads`. `more` says that
 * further parts follow, each `(status, list, more)`, whose lists extend this one (a long list sent
 * in parts, see the runtime). `target` as in toMarshal. Past `maxBytes` the encoding stops with a
 * {@link MarshalTooLargeError} (Default: no limit).
 */
export function toAnswer(status: number, value: unknown, target?: MarshalTarget, more = false, maxBytes?: number): Uint8Array {
  return encodeDocument(value, target, { status, more }, maxBytes);
}

function encodeDocument(value: unknown, target: MarshalTarget | undefined, answer?: { status: number; more: boolean }, maxBytes = Infinity): Uint8Array {
  const w = new Writer(target, maxBytes);
  if (answer) {
    w.byte(T_SMALL_TUPLE);
    w.byte(3);
    w.byte(T_INT);
    w.int32(answer.status);
  }
  const keyRefs = new Map<string, number>();
  let refCount = 0;
  /** Writes a dict key (a reference when sent before) and returns its reference number. */
  const key = (k: string): number => {
    const ref = keyRefs.get(k);
    if (ref !== undefined) {
      w.byte(T_REF);
      w.int32(ref);
      return ref;
    }
    keyRefs.set(k, refCount);
    w.string(k, FLAG_REF);
    return refCount++;
  };
  // Rows usually share their keys: the last keys seen at each depth and their reference numbers
  // make a repeated key cost a string comparison instead of a Map lookup.
  const shapes: { keys: string[]; refs: number[] }[] = [];

  // Path segments of the value being encoded, turned into a string only for error messages.
  const trail: (string | number)[] = [];
  const where = (n = trail.length) => '$' + trail.slice(0, n).map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
  // Containers being encoded, outermost first. Searched only once nesting is deep, which a cycle
  // always reaches and real data rarely does (a Set per container cost ~5% of the encode).
  const open: object[] = [];
  const enter = (o: object) => {
    if (open.length >= 32 && open.includes(o)) {
      // Report the first repetition: the path to the first container seen a second time.
      const seen = new Set<object>();
      const again = [...open, o].findIndex((c) => seen.size === seen.add(c).size);
      throw new TypeError(`[marshal] cycle at ${where(again)}: the value refers to itself`);
    }
    open.push(o);
  };

  const encode = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        return w.string(v);
      case 'number':
        if (Number.isInteger(v)) {
          if (v >= -0x80000000 && v <= 0x7fffffff) {
            w.byte(T_INT);
            return w.int32(v);
          }
          if (Number.isSafeInteger(v)) return w.long(BigInt(v));
        }
        return w.float(v);
      case 'boolean':
        return w.byte(v ? T_TRUE : T_FALSE);
      case 'bigint':
        return w.long(v);
      case 'undefined':
        return w.byte(T_NONE);
      case 'object':
        break;
      default:
        throw new TypeError(`[marshal] cannot send a ${typeof v} to Python (at ${where()})`);
    }
    if (v === null) return w.byte(T_NONE);
    if (v instanceof Uint8Array) return w.bytes(v);
    if (v instanceof ArrayBuffer) return w.bytes(new Uint8Array(v));
    if (v instanceof Date) return w.string(v.toISOString());
    enter(v);
    if (Array.isArray(v) || v instanceof Set) {
      const items = Array.isArray(v) ? v : [...v];
      w.byte(T_LIST);
      w.int32(items.length);
      trail.push(0);
      for (let i = 0; i < items.length; i++) {
        trail[trail.length - 1] = i;
        encode(items[i]);
      }
      trail.pop();
    } else if (v instanceof Map) {
      w.byte(T_DICT);
      for (const [k, item] of v) {
        if (item === undefined) continue;
        if (typeof k !== 'string') throw new TypeError(`[marshal] dict keys must be strings, got ${typeof k} at ${where()}`);
        key(k);
        trail.push(k);
        encode(item);
        trail.pop();
      }
      w.byte(T_NULL);
    } else {
      const o = v as Record<string, unknown>;
      w.byte(T_DICT);
      trail.push('');
      const seen = (shapes[open.length] ??= { keys: [], refs: [] });
      let i = 0;
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue;
        const item = o[k];
        if (item === undefined) continue;
        if (seen.keys[i] === k) {
          w.byte(T_REF);
          w.int32(seen.refs[i]!);
        } else {
          seen.keys[i] = k;
          seen.refs[i] = key(k);
        }
        i++;
        trail[trail.length - 1] = k;
        encode(item);
      }
      trail.pop();
      w.byte(T_NULL);
    }
    open.pop();
  };

  encode(value);
  if (answer) w.byte(answer.more ? T_TRUE : T_FALSE);
  if (w.pos > maxBytes) throw new MarshalTooLargeError(w.pos, maxBytes);
  if (w.inTarget) return w.buf.subarray(0, w.pos);
  // A view, not a copy: the writer is discarded, and large results are copied enough already.
  // Only trim when the buffer is mostly slack (it may be transferred whole to a worker).
  return w.buf.length > w.pos * 2 && w.pos > 4096 ? w.buf.slice(0, w.pos) : w.buf.subarray(0, w.pos);
}
