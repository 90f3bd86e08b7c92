/**
 * Reads one process's journal as it grows: from a bounded tail of what is there when it is found,
 * then every appended byte (the caller says when: a watch event or a poll). Whole lines only: a
 * line still being written waits for its end, and a line torn by a crash (no end before the next
 * segment, or before the process was found ended) is dropped. A line that is not a record
 * (edited by hand, torn in the middle) is skipped.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SEGMENT, segmentName, type JournalRecord } from './journal-layout.ts';

/** Bytes read per `read` call. */
const CHUNK = 256 * 1024;

/** The segments of a folder, oldest first. */
function segments(folder: string): number[] {
  try {
    return readdirSync(folder)
      .map((n) => SEGMENT.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

const isRecord = (v: unknown): v is JournalRecord => {
  const r = v as Partial<JournalRecord> | null;
  return !!r && typeof r.type === 'string' && typeof r.at === 'number' && typeof r.seq === 'number';
};

/** The reading position in one process's journal. */
export class ProcessTail {
  private segment = 0;
  private offset = 0;
  private carry = '';
  /** Lines skipped because they were not records. */
  skipped = 0;

  /** Starts at the last `historyBytes` of the newest segment (whole lines from there on). */
  constructor(
    readonly folder: string,
    historyBytes: number,
  ) {
    const all = segments(folder);
    this.segment = all.at(-1) ?? 1;
    const size = this.sizeOf(this.segment) ?? 0;
    this.offset = Math.max(0, size - historyBytes);
    // Starting inside a line: its rest is dropped below, up to the first line break.
    this.dropFirst = this.offset > 0;
  }

  private dropFirst: boolean;

  /** Reads what was appended since the last call; `final` drops a torn last line (the process ended). */
  read(final = false): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (;;) {
      const size = this.sizeOf(this.segment);
      if (size === undefined) {
        // Deleted by rotation while we were behind: go on with the oldest segment left after it.
        const next = segments(this.folder).find((n) => n > this.segment);
        if (next === undefined) break;
        this.move(next);
        continue;
      }
      if (size > this.offset) this.take(size, out);
      const next = segments(this.folder).find((n) => n > this.segment);
      if (next === undefined || (this.sizeOf(this.segment) ?? 0) > this.offset) break;
      // The writer moved on: what is left unfinished in this segment was torn.
      this.move(next);
    }
    if (final) this.carry = '';
    return out;
  }

  private move(segment: number): void {
    this.segment = segment;
    this.offset = 0;
    this.carry = '';
    this.dropFirst = false;
  }

  private sizeOf(segment: number): number | undefined {
    try {
      return statSync(join(this.folder, segmentName(segment))).size;
    } catch {
      return undefined;
    }
  }

  private take(size: number, out: JournalRecord[]): void {
    let fd: number;
    try {
      fd = openSync(join(this.folder, segmentName(this.segment)), 'r');
    } catch {
      return;
    }
    try {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, size - this.offset));
      while (this.offset < size) {
        const n = readSync(fd, buffer, 0, Math.min(buffer.length, size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.lines(buffer.toString('utf8', 0, n), out);
      }
    } finally {
      closeSync(fd);
    }
  }

  private lines(text: string, out: JournalRecord[]): void {
    const parts = (this.carry + text).split('\n');
    this.carry = parts.pop()!;
    for (const line of parts) {
      if (this.dropFirst) {
        this.dropFirst = false;
        continue;
      }
      if (!line) continue;
      try {
        const record: unknown = JSON.parse(line);
        if (isRecord(record)) out.push(record);
        else this.skipped++;
      } catch {
        this.skipped++;
      }
    }
  }
}
