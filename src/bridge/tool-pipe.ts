/**
 * `call_tool` over a pipe, for Python in a confined child process: the Pyodide worker writes the
 * request and blocks reading the answer straight from a file descriptor it shares with the host,
 * so a call costs one pipe round trip — no hop through the child's main thread, and the answer is
 * encoded (marshal) by the host, which bounds it before anything is sent.
 *
 * Frames: a 4-byte big-endian length, then a 1-byte kind, then the payload.
 * - `REQUEST` (worker -> host): the request text of `tool-request.ts`.
 * - `ANSWER` (host -> worker): 4-byte call id, 4-byte status, the marshal document.
 * The worker side uses blocking `readSync`/`writeSync` (it has nothing else to do while Python
 * waits); the host side parses chunks from its stream with {@link ToolPipeReader}.
 */

/** Frame kinds. */
export const PIPE_KIND = { request: 1, answer: 2, sleeping: 3 } as const;

const HEADER = 5;
const EMPTY = new Uint8Array(0);

const encoder = new TextEncoder();

/** Room a request frame for `text` may need: UTF-8 takes at most 3 bytes per UTF-16 unit. */
const requestRoom = (text: string) => HEADER + text.length * 3;

/** Writes the request frame for `text` at the start of `out` (at least {@link requestRoom} long); returns its length. */
function writeRequest(text: string, out: Uint8Array): number {
  const { written } = encoder.encodeInto(text, out.subarray(HEADER));
  new DataView(out.buffer, out.byteOffset).setUint32(0, written + 1);
  out[4] = PIPE_KIND.request;
  return HEADER + written;
}

/** A request frame. */
export function requestFrame(text: string): Uint8Array {
  const out = new Uint8Array(requestRoom(text));
  return out.slice(0, writeRequest(text, out));
}

/** An answer frame for `callId` carrying `payload` (a marshal document). */
export function answerFrame(callId: number, status: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER + 8 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 9 + payload.length);
  out[4] = PIPE_KIND.answer;
  view.setUint32(5, callId);
  view.setUint32(9, status);
  out.set(payload, HEADER + 8);
  return out;
}

/** A sleeping frame: the worker stopped spinning for the answer to `callId` and waits to be woken. */
export function sleepingFrame(callId: number): Uint8Array {
  const out = new Uint8Array(HEADER + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 5);
  out[4] = PIPE_KIND.sleeping;
  view.setUint32(5, callId);
  return out;
}

/** What a {@link ToolPipeReader} reports. */
export interface ToolPipeHandlers {
  request(text: string): void;
  /** The worker sleeps until woken for the answer to `callId` (see {@link ToolPipeClient}). */
  sleeping(callId: number): void;
  /** A frame over the size limit was announced: the peer misbehaves. */
  oversize(bytes: number): void;
}

/** Host side: reassembles request frames from stream chunks; refuses oversized ones from their header. */
export class ToolPipeReader {
  private buf = new Uint8Array(0);
  private readonly decoder = new TextDecoder();
  private broken = false;

  constructor(private readonly maxBytes: number, private readonly on: ToolPipeHandlers) {}

  push(chunk: Uint8Array): void {
    if (this.broken) return;
    // Usually a chunk is one whole request: read it in place, without a copy.
    let joined = chunk;
    if (this.buf.length > 0) {
      joined = new Uint8Array(this.buf.length + chunk.length);
      joined.set(this.buf);
      joined.set(chunk, this.buf.length);
    }
    let at = 0;
    while (joined.length - at >= 4) {
      const length = new DataView(joined.buffer, joined.byteOffset + at).getUint32(0);
      if (length > this.maxBytes || length < 1) {
        this.broken = true;
        this.on.oversize(length);
        return;
      }
      if (joined.length - at < 4 + length) break;
      const kind = joined[at + 4];
      const body = joined.subarray(at + HEADER, at + 4 + length);
      at += 4 + length;
      if (kind === PIPE_KIND.request) this.on.request(this.decoder.decode(body));
      else if (kind === PIPE_KIND.sleeping && body.length === 4) this.on.sleeping(new DataView(body.buffer, body.byteOffset, 4).getUint32(0));
    }
    this.buf = at === joined.length ? EMPTY : joined.slice(at);
  }
}

/** The synchronous file functions the worker side needs (Node's `fs`, captured before confinement). */
export interface SyncFs {
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  writeSync(fd: number, buffer: Uint8Array, offset?: number, length?: number): number;
}

/** Reads of the (non-blocking) pipe tried before the client goes to sleep. */
const SPIN_READS = 100;
/** Longest sleep before looking at the pipe (and the interrupt buffer) again without a wake-up, in ms. */
const SLEEP_MS = 20;

/** Python was interrupted while waiting for an answer. */
export class ToolPipeInterrupted extends Error {
  constructor() {
    super('interrupted while waiting for the answer');
    this.name = 'ToolPipeInterrupted';
  }
}

/**
 * Worker side: one request/answer exchange at a time over `fd`. The descriptor is non-blocking
 * (the child's main thread opens it so). Answers usually come within tens of microseconds and
 * waking a sleeping thread costs more than that on virtual machines, so the client first spins on
 * reads; then it tells the host it sleeps (a `sleeping` frame) and waits on `wake`, a word the
 * child's main thread sets and notifies when the host says the answer is there.
 */
export class ToolPipeClient {
  private buf = new Uint8Array(64 * 1024);
  private filled = 0;
  /** Bytes at the start of `buf` taken by the last frame returned: dropped when the next is read. */
  private taken = 0;
  private waitingFor = 0;
  /** Where requests are framed (grown as needed), so a request costs no allocation. */
  private out = new Uint8Array(4096);

  constructor(
    private readonly fd: number,
    private readonly fs: SyncFs,
    private readonly wake: Int32Array,
    /** Python's interrupt buffer: a 2 there ends the wait with {@link ToolPipeInterrupted}. */
    private readonly interrupt?: Int32Array,
  ) {}

  /** Writes a request frame (all of it). */
  send(text: string): void {
    const room = requestRoom(text);
    if (this.out.length < room) this.out = new Uint8Array(room);
    this.writeAll(this.out.subarray(0, writeRequest(text, this.out)));
  }

  /**
   * Blocks until the answer to `callId` arrives and returns its status and payload: a view that
   * stays valid until the next call of this client (Python copies it at once).
   * Answers to other calls (left over from a call the host cut short) are skipped.
   */
  receive(callId: number): { status: number; payload: Uint8Array } {
    this.waitingFor = callId;
    for (;;) {
      const frame = this.nextFrame();
      if (frame[0] !== PIPE_KIND.answer || frame.length < 9) continue;
      const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
      if (view.getUint32(1) !== callId) continue;
      return { status: view.getUint32(5), payload: frame.subarray(9) };
    }
  }

  /** The next whole frame's kind and body: a view of the buffer, valid until the next call. */
  private nextFrame(): Uint8Array {
    if (this.taken > 0) {
      this.buf.copyWithin(0, this.taken, this.filled);
      this.filled -= this.taken;
      this.taken = 0;
    }
    for (;;) {
      if (this.filled >= 4) {
        const length = new DataView(this.buf.buffer).getUint32(0);
        if (this.filled >= 4 + length) {
          this.taken = 4 + length;
          return this.buf.subarray(4, 4 + length);
        }
        if (this.buf.length < 4 + length) {
          const grown = new Uint8Array(Math.max(4 + length, this.buf.length * 2));
          grown.set(this.buf.subarray(0, this.filled));
          this.buf = grown;
        }
      }
      const n = this.read();
      if (n === 0) throw new Error('the host closed the tool pipe');
      this.filled += n;
    }
  }

  /** One read of at least a byte: spinning first, then sleeping until woken, while the pipe is empty. */
  private read(): number {
    // An empty pipe answers with a thrown EAGAIN; without a stack trace to capture, each try costs
    // half as much (~2 µs), so the answer is seen sooner.
    const traceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return this.spinRead();
    } finally {
      Error.stackTraceLimit = traceLimit;
    }
  }

  private spinRead(): number {
    let asleep = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return this.fs.readSync(this.fd, this.buf, this.filled, this.buf.length - this.filled, null);
      } catch (e) {
        if ((e as { code?: unknown }).code !== 'EAGAIN') throw e;
      }
      if (attempt < SPIN_READS) continue;
      if (this.interrupt && Atomics.load(this.interrupt, 0) === 2) throw new ToolPipeInterrupted();
      if (!asleep) {
        // Cleared before announcing: a wake-up sent after the announcement is never missed.
        Atomics.store(this.wake, 0, 0);
        this.writeAll(sleepingFrame(this.waitingFor));
        asleep = true;
        continue;
      }
      Atomics.wait(this.wake, 0, 0, SLEEP_MS);
      Atomics.store(this.wake, 0, 0);
    }
  }

  private writeAll(frame: Uint8Array): void {
    let at = 0;
    while (at < frame.length) {
      try {
        at += this.fs.writeSync(this.fd, frame, at, frame.length - at);
      } catch (e) {
        if ((e as { code?: unknown }).code !== 'EAGAIN') throw e;
      }
    }
  }
}
