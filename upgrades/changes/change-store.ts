/**
 * Where the change path keeps its history: a {@link SharedStore} (`openShared('changes')`) that
 * every process on the data folder (every tab in the browser) reads and appends to at once.
 *
 * - Blobs `<sha256>.json`: each version's content, `{ kind, target, content }` as canonical JSON,
 *   named by the sha256 of those bytes and written once.
 * - The journal: one checksummed line per decision (`journal.ts`), folded in order into the records
 *   (`journal-fold.ts`). Nothing is rewritten; a process reads only what was appended since its
 *   last read.
 *
 * This class reads, folds and appends; it decides nothing (that is `changes.ts`).
 */
import type { ChangeKind, StoreRepair } from '../../src/contracts/change-contract.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { SharedStore } from '../../src/platform/platform.ts';
import { canonicalJson, sha256Hex } from './content-hash.ts';
import { checksum, encodeEntry, type JournalEntry, type Writer } from './journal.ts';
import { FoldState, type CallCounts, type Transition } from './journal-fold.ts';

export type { Transition } from './journal-fold.ts';
import { ChangeRecords } from './records.ts';

/** A stored version: what its address was computed from. */
export interface StoredVersion {
  kind: ChangeKind;
  target: string;
  content: unknown;
}

/** A journal entry before its writer is stamped on it. */
export type NewEntry = JournalEntry extends infer E ? (E extends JournalEntry ? Omit<E, 'by'> : never) : never;

const HASH = /^[0-9a-f]{64}$/;

/** The lock name of a target: readable, safe as a file name, and distinct per target. */
export function lockName(kind: ChangeKind, target: string): string {
  return `${kind}-${target.replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 80)}-${checksum(`${kind}\u0000${target}`)}`;
}

/** The change journal and versions over a shared store. */
export class ChangeStore {
  readonly records = new ChangeRecords();
  readonly fold = new FoldState(this.records);
  /** This instance, as it signs its lines. */
  readonly writer: Writer = {
    // A process id where there is one (Node); a browser tab has none.
    ...(typeof (globalThis as { process?: { pid?: unknown } }).process?.pid === 'number' ? { pid: (globalThis as unknown as { process: { pid: number } }).process.pid } : {}),
    instance: [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, '0')).join(''),
  };
  private cursor = 0;
  private rest = 0;
  private reading: Promise<unknown> = Promise.resolve();
  private readonly parsed = new Map<string, StoredVersion>();
  /** Told of every read's transitions (set once the history is read: the first read is no news). */
  onFold?: (transitions: Transition[]) => void;

  constructor(readonly shared: SharedStore) {}

  /**
   * Reads and folds every line appended since the last read (this instance's own included), one
   * read at a time; resolves to what they did.
   */
  refresh(): Promise<Transition[]> {
    const next = this.reading.then(async () => {
      const { lines, cursor, rest } = await this.shared.read(this.cursor);
      this.cursor = cursor;
      this.rest = rest;
      const transitions = this.fold.apply(lines);
      if (transitions.length || this.fold.problems.length) this.onFold?.(transitions);
      return transitions;
    });
    this.reading = next.catch(() => undefined);
    return next;
  }

  /** Bytes of a line still unfinished at the end of the journal after the last read. */
  get unfinished(): number {
    return this.rest;
  }

  /** Appends `entry`, signed by this instance; resolves once durable (not folded yet: call {@link refresh}). */
  append(entry: NewEntry): Promise<void> {
    return this.shared.append(encodeEntry({ ...entry, by: this.writer } as JournalEntry));
  }

  /** Runs `fn` holding the lock of one target across processes. */
  lockTarget<T>(kind: ChangeKind, target: string, fn: () => Promise<T>): Promise<T> {
    return this.shared.lock(lockName(kind, target), fn);
  }

  /** The canary counts of change `id`. */
  counts(id: string): CallCounts {
    const c = this.fold.counts.get(id);
    return c ? { ...c } : { calls: 0, failures: 0 };
  }

  /**
   * Records the problems the fold found and nobody recorded yet (under the store's repair lock, so
   * two processes record each once), with `notes`; resolves to what was recorded.
   */
  async recordProblems(notes: string[] = []): Promise<StoreRepair[]> {
    return this.shared.lock('journal-repair', async () => {
      await this.refresh();
      const lines = this.fold.problems.map((p) => ({ at: p.at, why: p.why }));
      if (!lines.length && !notes.length) return [];
      const at = Date.now();
      await this.append({ t: 'repair', lines, notes, at });
      await this.refresh();
      return describeRepair({ lines, notes, when: at, ...(this.writer.pid ? { pid: this.writer.pid } : {}) }, this.shared.location);
    });
  }

  /** Every recorded repair, oldest first, in words. */
  repairs(): StoreRepair[] {
    return this.fold.repairs.flatMap((r) => describeRepair(r, this.shared.location));
  }

  /** Stores a version (unless its address already holds it) and resolves to its sha256. */
  async writeVersion(version: StoredVersion): Promise<string> {
    const text = canonicalJson(version);
    const hash = await sha256Hex(text);
    await this.shared.putBlob(`${hash}.json`, new TextEncoder().encode(text));
    return hash;
  }

  /**
   * The version at `hash`, or `undefined` when absent. With `verify`, its bytes are hashed again
   * and a mismatch throws `VERSION_CORRUPTED` (an edited or damaged file never loads).
   */
  async readVersion(hash: string, verify = true): Promise<StoredVersion | undefined> {
    const data = HASH.test(hash) ? this.shared.blob(`${hash}.json`) : undefined;
    if (data === undefined) return undefined;
    if (verify) {
      const actual = await sha256Hex(data);
      if (actual !== hash) {
        throw new ArmatureError('VERSION_CORRUPTED', `[changes] version ${hash.slice(0, 12)} does not match its sha256 (the file holds ${actual.slice(0, 12)}…): it was changed or damaged`, {
          hint: 'Roll back to another version, or propose this one again.',
          details: { hash, actual },
        });
      }
    }
    return parseVersion(hash, data);
  }

  /** The version at `hash` without hashing it again (for display), or `undefined`. */
  peekVersion(hash: string): StoredVersion | undefined {
    const known = this.parsed.get(hash);
    if (known) return known;
    const data = HASH.test(hash) ? this.shared.blob(`${hash}.json`) : undefined;
    if (data === undefined) return undefined;
    try {
      const v = parseVersion(hash, data);
      this.parsed.set(hash, v);
      return v;
    } catch {
      return undefined;
    }
  }
}

/** A recorded repair in words: one {@link StoreRepair} per line skipped and per note. */
export function describeRepair(r: { lines: { at: number; why: string }[]; notes: string[]; when: number; pid?: number }, location: string): StoreRepair[] {
  const base = { at: r.when, ...(r.pid ? { pid: r.pid } : {}) };
  return [...r.lines.map((l) => ({ ...base, what: `skipped the journal line at ${l.at} of ${location}: ${l.why}` })), ...r.notes.map((what) => ({ ...base, what }))];
}

function parseVersion(hash: string, data: Uint8Array): StoredVersion {
  try {
    const v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(data)) as StoredVersion;
    if (!v || typeof v !== 'object' || typeof v.kind !== 'string' || typeof v.target !== 'string') throw new Error('not a stored version');
    return v;
  } catch (e) {
    throw new ArmatureError('VERSION_CORRUPTED', `[changes] version ${hash.slice(0, 12)} cannot be read: ${(e as Error).message}`, { hint: 'Roll back to another version, or propose this one again.' });
  }
}

