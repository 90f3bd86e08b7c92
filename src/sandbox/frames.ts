/**
 * Length-prefixed frames over a Node byte stream (a pipe between a host and its confined child):
 * a 4-byte big-endian length, then the value in V8's serialization format (structured clone, as
 * `postMessage` uses). The reader refuses a frame longer than its limit from the length alone, and
 * skips its bytes as they arrive: an oversized message is never held in the reader's memory.
 */
import { deserialize, serialize } from 'node:v8';

/** Bytes of the length prefix. */
const HEADER = 4;
/** Largest length the prefix can say. */
export const MAX_FRAME_BYTES = 0xffff_ffff;

/** A value that is larger, serialized, than the limit it was checked against. */
export class FrameTooLargeError extends Error {
  readonly code = 'MESSAGE_TOO_LARGE';
  constructor(readonly bytes: number, readonly limit: number, what = 'the message') {
    super(`${what} is ${bytes} bytes; the limit is ${limit}`);
    this.name = 'FrameTooLargeError';
  }
}

/**
 * `value` as one frame. Throws {@link FrameTooLargeError} past `maxBytes` (measured on the
 * serialized form), or the serializer's DataCloneError for what cannot be cloned.
 */
export function encodeFrame(value: unknown, maxBytes = MAX_FRAME_BYTES, what?: string): Buffer {
  const body = serialize(value);
  const limit = Math.min(maxBytes, MAX_FRAME_BYTES);
  if (body.length > limit) throw new FrameTooLargeError(body.length, limit, what);
  const header = Buffer.allocUnsafe(HEADER);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body], HEADER + body.length);
}

/** What a {@link FrameReader} reports. */
export interface FrameHandlers {
  /** A whole frame, deserialized. */
  message(value: unknown): void;
  /** A frame longer than the limit was announced; its bytes are being skipped. */
  oversize(bytes: number): void;
  /** A frame could not be deserialized. */
  malformed(error: Error): void;
}

/** Reassembles frames from stream chunks. */
export class FrameReader {
  private header = Buffer.alloc(HEADER);
  private headerFill = 0;
  private body: Buffer | undefined;
  private bodyFill = 0;
  /** Bytes of an oversized frame still to skip. */
  private skip = 0;

  constructor(private readonly maxBytes: number, private readonly on: FrameHandlers) {}

  /** Feeds a chunk read from the stream. */
  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      if (!this.body) {
        const n = Math.min(HEADER - this.headerFill, chunk.length - at);
        chunk.copy(this.header, this.headerFill, at, at + n);
        this.headerFill += n;
        at += n;
        if (this.headerFill < HEADER) return;
        this.headerFill = 0;
        const length = this.header.readUInt32BE(0);
        if (length > this.maxBytes) {
          this.skip = length;
          this.on.oversize(length);
          continue;
        }
        // A whole frame in this chunk is read in place, without a copy.
        if (chunk.length - at >= length) {
          this.emit(chunk.subarray(at, at + length));
          at += length;
          continue;
        }
        this.body = Buffer.allocUnsafe(length);
        this.bodyFill = 0;
      }
      const n = Math.min(this.body.length - this.bodyFill, chunk.length - at);
      chunk.copy(this.body, this.bodyFill, at, at + n);
      this.bodyFill += n;
      at += n;
      if (this.bodyFill === this.body.length) {
        const body = this.body;
        this.body = undefined;
        this.emit(body);
      }
    }
  }

  private emit(body: Buffer): void {
    let value: unknown;
    try {
      value = deserialize(body);
    } catch (e) {
      this.on.malformed(e as Error);
      return;
    }
    this.on.message(value);
  }
}
