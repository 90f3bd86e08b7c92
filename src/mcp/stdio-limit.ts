/**
 * A size limit on the messages of `armature mcp` over stdio. The SDK's stdio transport closes
 * itself when one line passes its buffer size (10 MiB) but leaves the process running, so a
 * client that sent one huge request waited forever and the session was lost. Here a line longer
 * than the limit (the same 4 MiB the HTTP transport allows) is dropped as it arrives, never held
 * whole, and answered with a JSON-RPC error naming its size and the limit; the session goes on.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** Largest message accepted over stdio, in bytes: as over HTTP (the SDK's request body limit). Default of {@link LineLimit}. */
export const MAX_STDIO_MESSAGE_BYTES = 4 * 1024 * 1024;

/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;

/** How much of a dropped line's start and end is kept to find its id. */
const EDGE_BYTES = 256;

/** The id of a request from its first and last bytes, or null when it cannot be found there. */
export function idOf(head: string, tail: string): string | number | null {
  const value = (text: string) => (text.startsWith('"') ? (JSON.parse(text) as string) : Number(text));
  const atEnd = /"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")\s*\}\s*$/.exec(tail);
  if (atEnd) return value(atEnd[1]!);
  const atStart = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")/.exec(head);
  return atStart ? value(atStart[1]!) : null;
}

/**
 * Passes stdin's lines through whole, up to `max` bytes each; a longer one is dropped and `refuse`
 * gets the JSON-RPC error line to write back.
 */
export class LineLimit extends Transform {
  private line: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private head = '';
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly refuse: (answer: string) => void,
    private readonly max = MAX_STDIO_MESSAGE_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      this.size += piece.length;
      if (!this.dropping && this.size > this.max + 1) {
        // Too long: keep only its edges (for the id) and count the rest as it passes.
        const held = Buffer.concat(this.line);
        this.head = held.subarray(0, EDGE_BYTES).toString('utf8');
        this.tail = held.subarray(-EDGE_BYTES);
        this.line = [];
        this.dropping = true;
      }
      // Only the last bytes matter: a piece longer than the kept tail replaces it, never copied whole.
      if (this.dropping) this.tail = piece.length >= EDGE_BYTES ? piece.subarray(-EDGE_BYTES) : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
      else this.line.push(piece);
      if (nl === -1) continue;
      if (this.dropping) {
        const bytes = this.size - 1;
        const id = idOf(this.head, this.tail.toString('utf8').replace(/\r?\n$/, ''));
        const message = `the message is ${bytes} bytes; messages have at most ${this.max} bytes (as over HTTP): send less, and pass large data as workspace files`;
        this.refuse(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })}\n`);
      } else {
        this.push(Buffer.concat(this.line));
      }
      this.line = [];
      this.size = 0;
      this.dropping = false;
    }
    done();
  }
}
