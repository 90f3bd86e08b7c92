/**
 * The journal every Node process booted on a data folder keeps (see `journal-layout.ts`): its bus
 * events, appended in batches to its own segment files, and a presence file with a
 * heartbeat. A dashboard server on the same folder tails it, whether it started before or after.
 *
 * Costs on the hot path: a push per event. Lines are made (`JSON.stringify`, secrets masked) and
 * written when the queue is flushed: at the next turn of the loop after a quiet spell, so a lone
 * event reaches a dashboard at once, and at most once per {@link FLUSH_MS} while events keep
 * coming, so a server answering thousands of small calls a second spends one `write` per burst,
 * not one per call, and none of it between a request and its answer. Written synchronously, so
 * the order on disk is the order on the bus and an exit (`process.on('exit')`) still writes what
 * is pending; a process killed outright loses at most the last {@link FLUSH_MS}.
 */
import { close, closeSync, fsync, mkdirSync, openSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { AnyEventRecord, EventSource } from '../event-bus.ts';
import type { Disposable } from '../lifecycle.ts';
import { ControlWatcher, type ControlHandler } from './control.ts';
import { PRESENCE_FILE, processesDir, SEGMENT, segmentName, type JournalRecord, type Presence, type ProcessCommand, type ProcessInfo } from './journal-layout.ts';
import { pruneProcesses } from './prune.ts';
import { secretMasker } from './secrets.ts';

/** Longest a record waits in the queue while events keep coming, in ms. */
export const FLUSH_MS = 10;

/** Options of {@link openJournal}. */
export interface JournalOptions {
  /** The data folder (absolute). */
  dataDir: string;
  /** What this process is running. Default: `library`. */
  command?: ProcessCommand;
  /** The persona booted. */
  persona: string;
  /** Where events come from. */
  bus: Pick<EventSource, 'onAny' | 'history'>;
  /** Answers a dashboard's control requests (stop a run). Default: none (requests are refused). */
  control?: ControlHandler;
  /** Largest segment, in bytes. Default: 1 MiB. */
  segmentBytes?: number;
  /** Segments kept per process (the oldest are deleted). Default: 4. */
  segments?: number;
  /** How often the heartbeat is touched, in ms. Default: 1000. */
  heartbeatMs?: number;
  /** How long ended processes' folders are kept, in ms. Default: 24 hours. */
  retentionMs?: number;
  /** Largest line, in characters; a bigger event is written as a stub naming its size. Default: 256 KiB. */
  maxLineChars?: number;
  /** Where secret values are read from, to be masked in every line. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A process's open journal. */
export interface ProcessJournal extends Disposable {
  /** Who this process is, as dashboards see it. */
  readonly info: ProcessInfo;
  /** Its folder. */
  readonly folder: string;
  /** Writes what is pending now (tests, benchmarks); otherwise it happens once per tick. */
  flush(): void;
}

/** A new process id: start time, pid and a random part, so a reused pid is a new id. */
export function newProcessId(now = Date.now()): string {
  return `${now.toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Writes `value` as JSON to `file` whole: a temporary file, then a rename over it. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, file);
}

/** Opens this process's journal in `options.dataDir` and starts recording `options.bus`. */
export function openJournal(options: JournalOptions): ProcessJournal {
  return new JournalWriter(options);
}

class JournalWriter implements ProcessJournal {
  readonly info: ProcessInfo;
  readonly folder: string;
  private readonly presence: Presence;
  private readonly segmentBytes: number;
  private readonly keep: number;
  private readonly maxLine: number;
  private readonly mask: (line: string) => string;
  /** Records not yet written, in bus order. */
  private pending: JournalRecord[] = [];
  private scheduled = false;
  /** When the queue was last written (`performance.now()`), to hold a burst's records together. */
  private lastFlush = -Infinity;
  private fd = -1;
  private segment = 0;
  private size = 0;
  private closed = false;
  private readonly subscription: Disposable;
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private readonly control: ControlWatcher | undefined;

  constructor(options: JournalOptions) {
    const startedAt = Date.now();
    const id = newProcessId(startedAt);
    this.info = { id, pid: process.pid, command: options.command ?? 'library', persona: options.persona, startedAt };
    this.presence = { ...this.info, host: hostname() };
    this.folder = join(processesDir(options.dataDir), id);
    this.segmentBytes = options.segmentBytes ?? 1024 * 1024;
    this.keep = Math.max(1, options.segments ?? 4);
    this.maxLine = options.maxLineChars ?? 256 * 1024;
    this.mask = secretMasker(options.env ?? process.env);
    pruneProcesses(options.dataDir, options.retentionMs ?? 24 * 3600_000);
    mkdirSync(this.folder, { recursive: true });
    writeJsonAtomic(join(this.folder, PRESENCE_FILE), this.presence);
    this.openSegment(1);
    // What the bus already holds (a boot that began before the journal) goes first.
    for (const r of options.bus.history()) this.add(r);
    this.subscription = options.bus.onAny((r) => this.add(r));
    const beat = options.heartbeatMs ?? 1000;
    this.heartbeat = setInterval(() => this.beat(), beat);
    this.heartbeat.unref();
    this.control = options.control ? new ControlWatcher(this.folder, options.control, beat) : undefined;
    endAtExit(this);
  }

  flush(): void {
    this.scheduled = false;
    this.lastFlush = performance.now();
    if (!this.pending.length || this.fd < 0) return;
    const records = this.pending;
    this.pending = [];
    let text = '';
    let bytes = 0;
    for (const record of records) {
      const line = `${this.mask(this.line(record))}\n`;
      const n = Buffer.byteLength(line);
      // A segment ends before the line that would pass its bound (and holds one line at least),
      // however many lines a burst brought.
      if (this.size + bytes > 0 && this.size + bytes + n > this.segmentBytes) {
        this.append(text, bytes);
        text = '';
        bytes = 0;
        this.openSegment(this.segment + 1);
      }
      text += line;
      bytes += n;
    }
    this.append(text, bytes);
  }

  /** Appends `text` (`bytes` long) to the current segment. */
  private append(text: string, bytes: number): void {
    if (!bytes) return;
    writeSync(this.fd, text);
    this.size += bytes;
  }

  dispose(): void {
    this.end();
  }

  private add(r: AnyEventRecord): void {
    if (this.closed) return;
    const record: JournalRecord = { type: r.type, payload: r.payload, at: r.at, seq: r.seq };
    if ((r as { declared?: boolean }).declared) Object.assign(record, { declared: true, owner: (r as { owner: string }).owner });
    this.pending.push(record);
    if (this.scheduled) return;
    this.scheduled = true;
    // After a quiet spell at the next turn (fresh); within a burst, when its window ends.
    const wait = FLUSH_MS - (performance.now() - this.lastFlush);
    if (wait <= 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), wait).unref();
  }

  /** `record` as one line of JSON: a payload that cannot be written, or is too long, as a stub saying so. */
  private line(record: JournalRecord): string {
    let line: string;
    try {
      line = JSON.stringify(record);
    } catch {
      line = JSON.stringify({ ...record, payload: { unserializable: true } });
    }
    return line.length > this.maxLine ? JSON.stringify({ ...record, payload: { truncated: true, chars: line.length } }) : line;
  }

  private openSegment(n: number): void {
    if (this.fd >= 0) {
      // Made durable and closed off the loop: a full segment's fsync takes milliseconds.
      const full = this.fd;
      fsync(full, () => close(full, () => undefined));
    }
    this.segment = n;
    this.fd = openSync(join(this.folder, segmentName(n)), 'a');
    this.size = 0;
    for (const name of readdirSync(this.folder)) {
      const m = SEGMENT.exec(name);
      if (m && Number(m[1]) <= n - this.keep) rmSync(join(this.folder, name), { force: true });
    }
  }

  private beat(): void {
    const now = new Date();
    try {
      utimesSync(join(this.folder, PRESENCE_FILE), now, now);
    } catch {
      // The folder was removed under us (a person cleaning up): nothing to keep alive.
    }
  }

  /** Writes what is left and says the process ended; safe to call twice, and from `exit`. */
  end(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.subscription.dispose();
    clearInterval(this.heartbeat);
    this.control?.dispose();
    open.delete(this);
    try {
      if (this.fd >= 0) closeSync(this.fd);
      this.fd = -1;
      writeJsonAtomic(join(this.folder, PRESENCE_FILE), { ...this.presence, endedAt: Date.now() });
    } catch {
      // Gone already: a reader then sees the pid gone and calls it crashed, which is close enough.
    }
  }
}

/** The journals open in this process: an exit (even without dispose) ends each, writing what is pending. */
const open = new Set<{ end(): void }>();
let hooked = false;

function endAtExit(journal: { end(): void }): void {
  open.add(journal);
  if (hooked) return;
  hooked = true;
  // One listener for all of them: a process that boots many systems adds no listener per boot.
  process.on('exit', () => {
    for (const j of [...open]) j.end();
  });
}
