/**
 * A one-slot, chunked response channel over shared memory, so a worker can block on an answer
 * from the main thread (which it cannot receive by `postMessage` while blocked).
 *
 * The worker posts its request the ordinary way, then calls {@link SyncChannelClient.waitFor};
 * the main thread answers with {@link SyncChannelHost.respond}. Answers of any size flow through a
 * fixed data region chunk by chunk: the host writes a chunk and flips `state` to READY, the
 * client copies it out and flips it back to TAKEN (or IDLE after the last one).
 *
 * Runs in browsers (cross-origin isolated pages) and Node; imports nothing platform-specific.
 */

/** Control words (Int32 indices). */
const STATE = 0;
const CALL_ID = 1;
const TOTAL = 2;
const CHUNK_LEN = 3;
const OFFSET = 4;
const STATUS = 5;
const CONTROL_WORDS = 8;

/** How many times the client looks at the state before it sleeps in Atomics.wait. */
const SPIN_LOOKS = 20000;

/** `state` values. */
const IDLE = 0;
const READY = 1;
const TAKEN = 2;

/** The two shared buffers of a channel; send them to the worker in its init message. */
export interface SyncChannelBuffers {
  control: SharedArrayBuffer;
  data: SharedArrayBuffer;
}

/** Allocates a channel with a data region of `dataBytes`. Default: 8 MiB (fewer handshakes for big answers). */
export function createSyncChannelBuffers(dataBytes = 8 * 1024 * 1024): SyncChannelBuffers {
  return { control: new SharedArrayBuffer(CONTROL_WORDS * 4), data: new SharedArrayBuffer(dataBytes) };
}

/** Why waiting ended without an answer. */
export class SyncChannelAbort extends Error {
  constructor(readonly reason: 'timeout' | 'interrupted', ms: number) {
    super(reason === 'timeout' ? `no answer within ${ms} ms` : 'interrupted while waiting for an answer');
    this.name = 'SyncChannelAbort';
  }
}

/** The main-thread side: writes answers. Answers are written one at a time, in call order. */
export class SyncChannelHost {
  private readonly control: Int32Array;
  private readonly data: Uint8Array;
  private queue: Promise<void> = Promise.resolve();

  constructor(buffers: SyncChannelBuffers) {
    this.control = new Int32Array(buffers.control);
    this.data = new Uint8Array(buffers.data);
  }

  /**
   * Sends `payload` as the answer to call `callId` with a status word (0 = ok, by convention).
   * Resolves when the client took the last chunk, or rejects after `timeoutMs` of the client not
   * taking a chunk (it gave up or died).
   */
  respond(callId: number, payload: Uint8Array, status = 0, timeoutMs = 30_000): Promise<void> {
    const run = () => this.write(callId, payload, status, timeoutMs);
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async write(callId: number, payload: Uint8Array, status: number, timeoutMs: number): Promise<void> {
    const c = this.control;
    const size = this.data.byteLength;
    let offset = 0;
    do {
      // Wait until the client has taken the previous chunk (of this or an earlier answer).
      await this.waitWhile(READY, timeoutMs);
      const len = Math.min(size, payload.byteLength - offset);
      this.data.set(payload.subarray(offset, offset + len), 0);
      Atomics.store(c, CALL_ID, callId);
      Atomics.store(c, TOTAL, payload.byteLength);
      Atomics.store(c, CHUNK_LEN, len);
      Atomics.store(c, OFFSET, offset);
      Atomics.store(c, STATUS, status);
      Atomics.store(c, STATE, READY);
      Atomics.notify(c, STATE);
      offset += len;
    } while (offset < payload.byteLength);
    await this.waitWhile(READY, timeoutMs);
  }

  private async waitWhile(value: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Atomics.load(this.control, STATE) === value) {
      const left = deadline - Date.now();
      if (left <= 0) {
        // The client is gone; reset so the next answer is not blocked forever.
        Atomics.store(this.control, STATE, IDLE);
        throw new Error(`[bridge] the worker did not take the answer within ${timeoutMs} ms`);
      }
      const r = Atomics.waitAsync(this.control, STATE, value, left);
      if (!r.async) continue;
      // A timer keeps Node's event loop alive while waiting (a pending waitAsync alone does not).
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([r.value, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  }
}

/** Options of {@link SyncChannelClient.waitFor}. */
export interface WaitOptions {
  /** Give up after this many ms. Default: no limit. */
  timeoutMs?: number;
  /** An Int32Array whose element 0 becomes non-zero to interrupt (Pyodide's interrupt buffer). */
  interrupt?: Int32Array;
  /** How often to look at `interrupt` while waiting, in ms. Default: 50. */
  sliceMs?: number;
  /** Bytes to leave free at the start of the returned payload (e.g. for a status byte). Default: 0. */
  reserve?: number;
}

/** The worker side: blocks until the answer to a call has arrived whole. */
export class SyncChannelClient {
  private readonly control: Int32Array;
  private readonly data: Uint8Array;

  constructor(buffers: SyncChannelBuffers) {
    this.control = new Int32Array(buffers.control);
    this.data = new Uint8Array(buffers.data);
  }

  /**
   * Blocks until the answer to `callId` has arrived and returns it with its status word.
   * Chunks of stale answers (calls given up earlier) are skipped. Throws {@link SyncChannelAbort}
   * on timeout or interrupt.
   */
  waitFor(callId: number, options: WaitOptions = {}): { status: number; payload: Uint8Array } {
    const c = this.control;
    const slice = options.sliceMs ?? 50;
    const reserve = options.reserve ?? 0;
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    let out: Uint8Array | undefined;
    let received = 0;
    for (;;) {
      let state = Atomics.load(c, STATE);
      // Answers often arrive within tens of microseconds: spinning briefly first avoids paying a
      // sleep/wake-up of this thread for each of them.
      for (let spin = 0; state !== READY && spin < SPIN_LOOKS; spin++) state = Atomics.load(c, STATE);
      if (state !== READY) {
        if (options.interrupt && Atomics.load(options.interrupt, 0) !== 0) throw new SyncChannelAbort('interrupted', 0);
        const left = deadline - Date.now();
        if (left <= 0) throw new SyncChannelAbort('timeout', options.timeoutMs ?? 0);
        Atomics.wait(c, STATE, state, Math.min(slice, left));
        continue;
      }
      const id = Atomics.load(c, CALL_ID);
      const total = Atomics.load(c, TOTAL);
      const len = Atomics.load(c, CHUNK_LEN);
      const offset = Atomics.load(c, OFFSET);
      const status = Atomics.load(c, STATUS);
      const last = offset + len >= total;
      if (id === callId) {
        out ??= new Uint8Array(total + reserve);
        // Copy out of shared memory: decoders reject shared views, and the host reuses the region.
        out.set(this.data.subarray(0, len), offset + reserve);
        received += len;
      }
      Atomics.store(c, STATE, last ? IDLE : TAKEN);
      Atomics.notify(c, STATE);
      if (id === callId && last && received >= total) return { status, payload: out ?? new Uint8Array(reserve) };
    }
  }
}
