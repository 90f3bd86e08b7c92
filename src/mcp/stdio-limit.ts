/**
 * A size limit on the messages of `armature mcp` over stdio. The SDK's stdio transport closes
 * itself when one line passes its buffer size (10 MiB) but leaves the process running, so a
 * client that sent one huge request waited forever and the session was lost. Here a line longer
 * than the limit (the same 4 MiB the HTTP transport allows) is dropped as it arrives, never held
 * whole, and answered with a JSON-RPC error naming its size and the limit; the session goes on.
 *
 * It sits between stdin and the SDK's transport without a stream of its own: whole lines go on
 * in the chunks they came in (a chunk of complete lines is passed as it is, without a copy), the
 * last, unfinished line is held until its end comes.
 */
import { EventEmitter } from 'node:events';

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
 * Passes whole lines of at most `max` bytes on to `pass`; a longer one is dropped as it comes and
 * `refuse` gets the JSON-RPC error line to write back.
 */
export class LineLimit {
  /** The start of the line not finished yet (at most `max` bytes of it). */
  private held: Buffer[] = [];
  private size = 0;
  private dropping = false;
  private head = '';
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly refuse: (answer: string) => void,
    private readonly max = MAX_STDIO_MESSAGE_BYTES,
  ) {}

  /** Takes the next chunk of input; calls `pass` with each run of whole, accepted lines. */
  feed(chunk: Buffer, pass: (lines: Buffer) => void): void {
    let start = 0;
    // Whole lines from `from` on that need no check pass in one piece: `from` is where they begin.
    let from = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const length = end - start;
      if (!this.held.length && !this.dropping && nl !== -1 && length <= this.max + 1) {
        // A whole line in this chunk, short enough: it goes with its neighbours, uncopied.
        start = end;
        continue;
      }
      if (from < start) pass(chunk.subarray(from, start));
      const piece = chunk.subarray(start, end);
      start = end;
      from = end;
      this.size += piece.length;
      if (!this.dropping && this.size > this.max + 1) {
        // Too long: keep only its edges (for the id) and count the rest as it passes.
        const held = Buffer.concat([...this.held, piece]);
        this.head = held.subarray(0, EDGE_BYTES).toString('utf8');
        this.tail = held.subarray(-EDGE_BYTES);
        this.held = [];
        this.dropping = true;
      } else if (this.dropping) {
        // Only the last bytes matter: a piece longer than the kept tail replaces it, never copied whole.
        this.tail = piece.length >= EDGE_BYTES ? piece.subarray(-EDGE_BYTES) : Buffer.concat([this.tail, piece]).subarray(-EDGE_BYTES);
      } else {
        this.held.push(piece);
      }
      if (nl === -1) continue;
      if (this.dropping) {
        const bytes = this.size - 1;
        const id = idOf(this.head, this.tail.toString('utf8').replace(/\r?\n$/, ''));
        const message = `the message is ${bytes} bytes; messages have at most ${this.max} bytes (as over HTTP): send less, and pass large data as workspace files`;
        this.refuse(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })}\n`);
      } else {
        pass(Buffer.concat(this.held));
      }
      this.held = [];
      this.size = 0;
      this.dropping = false;
    }
    // Lines that needed no check after the last one that did (an unfinished line ends a chunk, so none is held here).
    if (from < start) pass(chunk.subarray(from, start));
  }
}

/**
 * `stdin` as the SDK's stdio transport reads it (`on`/`off('data')`, `pause`), with the limit in
 * between: it emits only whole lines of at most `max` bytes.
 */
export function limitedInput(stdin: NodeJS.ReadableStream, refuse: (answer: string) => void, max = MAX_STDIO_MESSAGE_BYTES): NodeJS.ReadableStream & { detach(): void } {
  const limit = new LineLimit(refuse, max);
  const out = new EventEmitter() as EventEmitter & { pause(): unknown; detach(): void };
  const emit = (lines: Buffer) => void out.emit('data', lines);
  const onData = (chunk: Buffer) => limit.feed(chunk, emit);
  const onError = (e: unknown) => void out.emit('error', e);
  stdin.on('data', onData);
  stdin.on('error', onError);
  out.pause = () => stdin.pause();
  out.detach = () => {
    stdin.off('data', onData);
    stdin.off('error', onError);
  };
  return out as unknown as NodeJS.ReadableStream & { detach(): void };
}
