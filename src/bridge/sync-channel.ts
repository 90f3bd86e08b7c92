/**
 * A shared-memory channel through which a worker makes blocking calls to the main thread (which
 * cannot answer by `postMessage` while the worker is blocked).
 *
 * Requests: the worker puts the request text in a one-slot request region
 * ({@link SyncChannelClient.offer}). If the host is polling the slot (it does for a moment after
 * each answer, because calls come in bursts) it finds the request within microseconds and no
 * message is needed; otherwise the worker posts a message to wake it. A request too large for the
 * region goes by message instead. The slot is claimed with compare-and-exchange, so a request is
 * taken exactly once however the host learns of it.
 *
 * Answers: the worker blocks in {@link SyncChannelClient.waitFor}; the host answers with
 * {@link SyncChannelHost.respond}. Answers of any size flow through a fixed data region chunk by
 * chunk: the host writes a chunk and flips `state` to READY, the client copies it out and flips it
 * back to TAKEN (or IDLE after the last one). A one-chunk answer can be read in place: the client
 * then holds the region (HELD) until {@link SyncChannelClient.release} or its next call.
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
const REQ_STATE = 6;
const REQ_CALL_ID = 7;
const REQ_LEN = 8;
/** 1 while the host looks at the request slot on its own (see SyncChannelHost.polling). */
const HOST_POLLING = 9;
/** The call the client last waited for (it moved on from any other). */
const WAITING_FOR = 10;
const CONTROL_WORDS = 16;

/** How many times the client looks at the state before it sleeps in Atomics.wait. */
const SPIN_LOOKS = 20000;

/** `state` values. */
const IDLE = 0;
const READY = 1;
const TAKEN = 2;
/** The client returned a view of the region (one-chunk answer) that is still being read. */
const HELD = 3;

/** Whether the answer region holds something the client has not finished with. */
const busy = (state: number) => state === READY || state === HELD;

/** `REQ_STATE` values. */
const REQ_EMPTY = 0;
const REQ_PENDING = 1;
const REQ_CLAIMED = 2;

/** The shared buffers of a channel; send them to the worker in its init message. */
export interface SyncChannelBuffers {
  control: SharedArrayBuffer;
  /** Answers: one whole answer when it fits, else chunk by chunk. Growable where supported. */
  data: SharedArrayBuffer;
  /** One request at a time, as UTF-8 text. */
  request: SharedArrayBuffer;
}

/** Sizes of a channel's regions. */
export interface SyncChannelSizes {
  /** Initial size of the answer region. Default: 1 MiB. */
  dataBytes?: number;
  /**
   * Size the answer region may grow to, so that answers up to it travel whole, encoded straight
   * into it; bigger ones are chunked. The region keeps the largest size it reached. Where growable
   * SharedArrayBuffers are missing the region is fixed at this size. Default: 64 MiB.
   */
  maxDataBytes?: number;
  /** Size of the request slot; larger requests go by message. Default: 64 KiB. */
  requestBytes?: number;
}

/** Allocates a channel (see {@link SyncChannelSizes}). */
export function createSyncChannelBuffers(sizes: SyncChannelSizes = {}): SyncChannelBuffers {
  const max = sizes.maxDataBytes ?? 64 * 1024 * 1024;
  const initial = Math.min(sizes.dataBytes ?? 1024 * 1024, max);
  let data = new SharedArrayBuffer(initial, { maxByteLength: max });
  // Older engines ignore the option and give a fixed buffer: then allocate the maximum at once
  // (pages never written are not committed).
  if (!data.growable && initial < max) data = new SharedArrayBuffer(max);
  return { control: new SharedArrayBuffer(CONTROL_WORDS * 4), data, request: new SharedArrayBuffer(sizes.requestBytes ?? 64 * 1024) };
}

/** Memory the next answer can be encoded into in place (see {@link SyncChannelHost.answerTarget}). */
export interface AnswerTarget {
  /** The answer region, from offset 0 (a fixed-length view: filling one that tracks growth is ~3x slower). */
  bytes: Uint8Array;
  /** Grows the region to at least `bytes` and returns the new view; undefined beyond its maximum. */
  grow(bytes: number): Uint8Array | undefined;
}

/** A request taken from the slot by the host. */
export interface SlotRequest {
  callId: number;
  text: string;
}

/** What the worker must do after {@link SyncChannelClient.offer}. */
export type OfferOutcome =
  /** The host is polling the slot and will find the request: send nothing. */
  | 'polled'
  /** The request is in the slot but the host is not looking: post a message to wake it. */
  | 'notify'
  /** The request does not fit the region: send it whole by message. */
  | 'too-large';

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
  private readonly region: SharedArrayBuffer;
  /** Fixed-length view of the whole region, replaced when it grows. */
  private data: Uint8Array;
  private readonly request: Uint8Array;
  private readonly decoder = new TextDecoder();
  private queue: Promise<void> | undefined;

  constructor(buffers: SyncChannelBuffers) {
    this.control = new Int32Array(buffers.control);
    this.region = buffers.data;
    this.data = new Uint8Array(buffers.data, 0, buffers.data.byteLength);
    this.request = new Uint8Array(buffers.request);
  }

  /**
   * The answer region to encode the next answer into, when it is free now (no answer queued, the
   * last one taken); pass what was encoded there to {@link respond} in the same task, before
   * anything else can answer.
   */
  answerTarget(): AnswerTarget | undefined {
    if (this.queue || busy(Atomics.load(this.control, STATE))) return undefined;
    return { bytes: this.data, grow: (n) => (this.grow(n) ? this.data : undefined) };
  }

  private grow(bytes: number): boolean {
    const r = this.region;
    if (bytes <= r.byteLength) return true;
    if (!r.growable || bytes > r.maxByteLength) return false;
    r.grow(bytes);
    this.data = new Uint8Array(r, 0, r.byteLength);
    return true;
  }

  /**
   * Whether the host is looking at the request slot by itself. While true the worker posts no
   * message for a request it puts in the slot. Turning it off returns a request that arrived in
   * the meantime (the worker saw `true` and posted nothing): the caller must handle it.
   */
  setPolling(on: boolean): SlotRequest | undefined {
    Atomics.store(this.control, HOST_POLLING, on ? 1 : 0);
    // Sequentially consistent: either the worker sees 0 and posts, or this sees its request.
    return on ? undefined : this.takeRequest();
  }

  /** Claims the request waiting in the slot, if any. Each request is returned exactly once. */
  takeRequest(): SlotRequest | undefined {
    const c = this.control;
    if (Atomics.load(c, REQ_STATE) !== REQ_PENDING) return undefined;
    if (Atomics.compareExchange(c, REQ_STATE, REQ_PENDING, REQ_CLAIMED) !== REQ_PENDING) return undefined;
    // Read only after claiming: the worker does not touch the slot while it is claimed.
    const callId = Atomics.load(c, REQ_CALL_ID);
    const len = Atomics.load(c, REQ_LEN);
    // TextDecoder rejects views of shared memory: copy the (small) request out first.
    const text = this.decoder.decode(this.request.slice(0, len));
    Atomics.store(c, REQ_STATE, REQ_EMPTY);
    Atomics.notify(c, REQ_STATE);
    return { callId, text };
  }

  /**
   * Sends `payload` as the answer to call `callId` with a status word (0 = ok, by convention).
   * Resolves when the client took the last chunk, or rejects after `timeoutMs` of the client not
   * taking a chunk (it gave up or died). An answer that fits the region while the channel is free
   * is written at once, before this returns.
   */
  respond(callId: number, payload: Uint8Array, status = 0, timeoutMs = 30_000): Promise<void> {
    // Encoded in place (answerTarget): the region from offset 0.
    const inPlace = payload.buffer === this.region && payload.byteOffset === 0;
    const free = !this.queue && !busy(Atomics.load(this.control, STATE));
    if (free && (inPlace || this.grow(payload.byteLength))) {
      // The common case, kept free of promise hops: the client is waiting and spinning, so every
      // microsecond here is on its clock. Nothing waits for the client to take it; the next
      // answer does (and resets the channel if the client is gone).
      this.publish(callId, inPlace ? undefined : payload, payload.byteLength, 0, payload.byteLength, status);
      return Promise.resolve();
    }
    // Encoded in place, but the region is no longer free (the caller broke the same-task rule).
    if (inPlace) payload = payload.slice();
    this.grow(Math.min(payload.byteLength, this.region.growable ? this.region.maxByteLength : this.region.byteLength));
    const run = () => this.write(callId, payload, status, timeoutMs);
    const next = (this.queue ?? Promise.resolve()).then(run, run);
    const tail = next.catch(() => undefined);
    this.queue = tail;
    void tail.then(() => {
      if (this.queue === tail) this.queue = undefined;
    });
    return next;
  }

  /** Copies a chunk of `payload` (none: already in the region) and hands it to the client. */
  private publish(callId: number, payload: Uint8Array | undefined, total: number, offset: number, len: number, status: number): void {
    const c = this.control;
    if (payload) this.data.set(len === payload.byteLength ? payload : payload.subarray(offset, offset + len), 0);
    Atomics.store(c, CALL_ID, callId);
    Atomics.store(c, TOTAL, total);
    Atomics.store(c, CHUNK_LEN, len);
    Atomics.store(c, OFFSET, offset);
    Atomics.store(c, STATUS, status);
    Atomics.store(c, STATE, READY);
    Atomics.notify(c, STATE);
  }

  /** Resolves once the client has taken the last answer (or rejects after `timeoutMs`). */
  whenTaken(timeoutMs = 30_000): Promise<void> {
    return this.waitUntilFree(timeoutMs);
  }

  /** Whether the client's latest wait is for `callId` (false once it has moved on to another call). */
  clientWaitsFor(callId: number): boolean {
    return Atomics.load(this.control, WAITING_FOR) === callId;
  }

  private async write(callId: number, payload: Uint8Array, status: number, timeoutMs: number): Promise<void> {
    const size = this.data.byteLength;
    let offset = 0;
    do {
      // Wait until the client has taken the previous chunk (of this or an earlier answer).
      await this.waitUntilFree(timeoutMs);
      const len = Math.min(size, payload.byteLength - offset);
      this.publish(callId, payload, payload.byteLength, offset, len, status);
      offset += len;
    } while (offset < payload.byteLength);
    await this.waitUntilFree(timeoutMs);
  }

  private async waitUntilFree(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let value = Atomics.load(this.control, STATE); busy(value); value = Atomics.load(this.control, STATE)) {
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
  /**
   * Return a one-chunk answer as a view of the shared region instead of a copy. The region is
   * then held — the host writes nothing — until {@link SyncChannelClient.release} or the next
   * `offer`/`waitFor`; read the view before either. Default: false.
   */
  view?: boolean;
}

/** The worker side: offers requests and blocks until the answer to a call has arrived whole. */
export class SyncChannelClient {
  private readonly control: Int32Array;
  /** The answer region; it may have grown since the last answer, so views are made per chunk. */
  private readonly region: SharedArrayBuffer;
  private readonly request: Uint8Array;
  private readonly scratch: Uint8Array;
  private readonly encoder = new TextEncoder();

  constructor(buffers: SyncChannelBuffers) {
    this.control = new Int32Array(buffers.control);
    this.region = buffers.data;
    this.request = new Uint8Array(buffers.request);
    this.scratch = new Uint8Array(buffers.request.byteLength);
  }

  /**
   * Puts the request for `callId` in the slot, replacing one the host never took (a call given up
   * on), and says whether a message must follow (see {@link OfferOutcome}).
   */
  offer(callId: number, text: string): OfferOutcome {
    const c = this.control;
    this.release();
    // Withdraw an untaken request; if the host is copying one out right now, let it finish.
    while (Atomics.compareExchange(c, REQ_STATE, REQ_PENDING, REQ_EMPTY) === REQ_CLAIMED) Atomics.wait(c, REQ_STATE, REQ_CLAIMED, 5);
    // Chromium's encodeInto refuses shared memory: encode privately, then copy (requests are small).
    const { read, written } = this.encoder.encodeInto(text, this.scratch);
    if (read < text.length) return 'too-large';
    this.request.set(this.scratch.subarray(0, written));
    return this.publish(callId, written);
  }

  private publish(callId: number, len: number): OfferOutcome {
    const c = this.control;
    Atomics.store(c, REQ_CALL_ID, callId);
    Atomics.store(c, REQ_LEN, len);
    Atomics.store(c, REQ_STATE, REQ_PENDING);
    // Sequentially consistent with SyncChannelHost.setPolling: a request is never left unseen.
    return Atomics.load(c, HOST_POLLING) === 1 ? 'polled' : 'notify';
  }

  /**
   * Blocks until the answer to `callId` has arrived and returns it with its status word.
   * Chunks of stale answers (calls given up earlier) are skipped. Throws {@link SyncChannelAbort}
   * on timeout or interrupt.
   */
  waitFor(callId: number, options: WaitOptions = {}): { status: number; payload: Uint8Array } {
    const c = this.control;
    this.release();
    Atomics.store(c, WAITING_FOR, callId);
    const slice = options.sliceMs ?? 50;
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
      if (id === callId && options.view && offset === 0 && last) {
        // Read in place: no copy into fresh (page-faulting) memory; the host waits for release().
        Atomics.store(c, STATE, HELD);
        return { status, payload: new Uint8Array(this.region, 0, len) };
      }
      if (id === callId) {
        out ??= new Uint8Array(total);
        // Copy out of shared memory: the host reuses the region for the next chunk.
        out.set(new Uint8Array(this.region, 0, len), offset);
        received += len;
      }
      Atomics.store(c, STATE, last ? IDLE : TAKEN);
      Atomics.notify(c, STATE);
      if (id === callId && last && received >= total) return { status, payload: out ?? new Uint8Array(0) };
    }
  }

  /** Lets the host use the answer region again after a `view` answer (harmless otherwise). */
  release(): void {
    if (Atomics.compareExchange(this.control, STATE, HELD, IDLE) === HELD) Atomics.notify(this.control, STATE);
  }
}
