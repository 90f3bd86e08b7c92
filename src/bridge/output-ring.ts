/**
 * A shared-memory ring through which a worker streams its output (stdout, stderr, markers) to
 * the main thread.
 *
 * Why: a worker running Python synchronously cannot run timers, so output it batches for
 * postMessage leaves only on its next write — the last lines before a long silent computation
 * appeared late. Here the worker only appends bytes and rings a doorbell (one message per batch,
 * not per write); the host drains the ring on its own timers, while the worker computes.
 *
 * Records: kind (1 byte), length (4 bytes), payload. Positions are running byte counts (the
 * ring index is `position % size`), so "used = written - read" needs no wrap bookkeeping.
 * A full ring makes the writer wait for the reader (backpressure) instead of dropping output.
 */

/** Record kinds. */
export const OUTPUT_KIND = { stdout: 1, stderr: 2, mark: 3 } as const;
export type OutputKind = (typeof OUTPUT_KIND)[keyof typeof OUTPUT_KIND];

const WRITTEN = 0;
const READ = 1;
/** 1 while a drain is requested and not yet started: the writer posts at most one message per drain. */
const DOORBELL = 2;
const CONTROL_BYTES = 16;
const HEADER = 5;

/** The ring's shared buffer, of `bytes` rounded up to a power of two (default: 1 MiB); send it to the worker in its init message. */
export function createOutputRing(bytes = 1024 * 1024): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + 2 ** Math.ceil(Math.log2(Math.max(64, bytes))));
}

function ringOf(buffer: SharedArrayBuffer): { control: Int32Array; data: Uint8Array } {
  const data = new Uint8Array(buffer, CONTROL_BYTES);
  // Positions are 32-bit running counts: the index stays continuous across their wrap only if
  // the size divides 2**32.
  if (data.length & (data.length - 1)) throw new Error(`[output-ring] the ring size must be a power of two, got ${data.length}`);
  return { control: new Int32Array(buffer, 0, CONTROL_BYTES / 4), data };
}

/** Options of {@link OutputRingWriter}. */
export interface OutputRingWriterOptions {
  /**
   * Called when the reader should be told that output is waiting (post a message); `full` when
   * the writer is blocked on a full ring, so the reader should drain without delay.
   */
  ring: (full: boolean) => void;
  /** How long to wait for the reader in one slice while the ring is full, in ms. Default: 50. */
  waitSliceMs?: number;
}

/** The worker side. */
export class OutputRingWriter {
  private readonly control: Int32Array;
  private readonly data: Uint8Array;
  private readonly size: number;
  private readonly header = new DataView(new ArrayBuffer(HEADER));

  constructor(
    buffer: SharedArrayBuffer,
    private readonly options: OutputRingWriterOptions,
  ) {
    ({ control: this.control, data: this.data } = ringOf(buffer));
    this.size = this.data.length;
  }

  /** Appends one record; waits while the ring is full. Payloads larger than half the ring are split. */
  write(kind: OutputKind, payload: Uint8Array): void {
    const max = Math.floor(this.size / 2) - HEADER;
    let at = 0;
    do {
      this.append(kind, payload.subarray(at, Math.min(payload.length, at + max)));
      at += max;
    } while (at < payload.length);
  }

  private append(kind: OutputKind, part: Uint8Array): void {
    const c = this.control;
    const need = HEADER + part.length;
    let written = Atomics.load(c, WRITTEN);
    let blocked = false;
    for (let read = Atomics.load(c, READ); ((written - read) | 0) + need > this.size; read = Atomics.load(c, READ)) {
      // Full: tell the reader (once per wait) that it holds the writer up, then wait for it.
      if (!blocked) this.options.ring(true);
      blocked = true;
      Atomics.store(c, DOORBELL, 1);
      Atomics.wait(c, READ, read, this.options.waitSliceMs ?? 50);
    }
    this.header.setUint8(0, kind);
    this.header.setUint32(1, part.length, true);
    this.copyIn(written, new Uint8Array(this.header.buffer));
    this.copyIn(written + HEADER, part);
    // Running counts wrap at 2**32 (Int32 words); differences are taken with `| 0`.
    written = (written + need) | 0;
    Atomics.store(c, WRITTEN, written);
    this.doorbell();
  }

  private doorbell(): void {
    if (Atomics.compareExchange(this.control, DOORBELL, 0, 1) === 0) this.options.ring(false);
  }

  private copyIn(position: number, bytes: Uint8Array): void {
    const at = mod(position, this.size);
    const first = Math.min(bytes.length, this.size - at);
    this.data.set(bytes.subarray(0, first), at);
    if (first < bytes.length) this.data.set(bytes.subarray(first), 0);
  }
}

/** The host side: drains records in order. */
export class OutputRingReader {
  private readonly control: Int32Array;
  private readonly data: Uint8Array;
  private readonly size: number;

  constructor(buffer: SharedArrayBuffer) {
    ({ control: this.control, data: this.data } = ringOf(buffer));
    this.size = this.data.length;
  }

  /**
   * Hands waiting records to `onRecord` — all of them, or whole records until about `maxBytes`
   * of payload — then frees their space at once (one store and one wake-up per drain, not per
   * record). The payload is a view of shared memory when the record does not wrap, valid only
   * during the call: copy what you keep. Clears the doorbell first, so a record written during
   * the drain rings again. Returns whether records were left (the doorbell then stays rung: the
   * caller drains again without being told).
   */
  drain(onRecord: (kind: OutputKind, payload: Uint8Array) => void, maxBytes = Infinity): boolean {
    const c = this.control;
    Atomics.store(c, DOORBELL, 0);
    let read = Atomics.load(c, READ);
    const written = Atomics.load(c, WRITTEN);
    if (read === written) return false;
    let taken = 0;
    while (read !== written && taken < maxBytes) {
      const head = this.view(read, HEADER);
      const kind = head[0] as OutputKind;
      const len = head[1]! | (head[2]! << 8) | (head[3]! << 16) | (head[4]! << 24);
      onRecord(kind, this.view(read + HEADER, len));
      read = (read + HEADER + len) | 0;
      taken += len;
    }
    Atomics.store(c, READ, read);
    Atomics.notify(c, READ);
    const left = read !== written;
    if (left) Atomics.store(c, DOORBELL, 1);
    return left;
  }

  private view(position: number, length: number): Uint8Array {
    const at = mod(position, this.size);
    if (at + length <= this.size) return this.data.subarray(at, at + length);
    const out = new Uint8Array(length);
    const first = this.size - at;
    out.set(this.data.subarray(at), 0);
    out.set(this.data.subarray(0, length - first), first);
    return out;
  }
}

function mod(position: number, size: number): number {
  return (position >>> 0) & (size - 1);
}
