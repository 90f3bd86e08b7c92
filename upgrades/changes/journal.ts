/**
 * The lines of the change journal: what each says, and how it is written so that a torn, cut or
 * edited line is found and never folded. A line is `<crc32 of the JSON, 8 hex digits> <JSON>`; the
 * JSON is one {@link JournalEntry}. Which version of a target is in force changes only by one
 * `activate` line, which names the change it replaces: one line, one write, so no crash can leave
 * two versions in force, and a line decided over a stale view (it names a change no longer in
 * force) is refused by the fold (see `journal-fold.ts`).
 */
import crc32 from 'crc/calculators/crc32';
import type { ChangeRecord, ChangeStatus } from '../../src/contracts/change-contract.ts';

/** Who wrote a line: the process and the change path instance in it. */
export interface Writer {
  /** The writing process's pid, when it has one. */
  pid?: number;
  /** A random id of the change path instance (two may share a process, e.g. in tests). */
  instance: string;
}

/** A change record first written in force with its `activate` line, or a record decided otherwise. */
export type JournalEntry =
  /** A change decided without coming into force: `pending` or `rejected`. */
  | { t: 'new'; record: ChangeRecord; by: Writer }
  /**
   * Change `id` comes into force for its target, replacing `replaced` (null: nothing was in force)
   * which ends as `end` says. `record` is the whole record when the change is new; otherwise it was
   * pending. `set` holds the fields the activation sets (approver, times, outcome).
   */
  | { t: 'activate'; id: string; record?: ChangeRecord; replaced: string | null; set: Partial<ChangeRecord>; end?: { status: 'superseded' | 'rolled-back'; outcome: string }; at: number; by: Writer }
  /** A pending change is decided otherwise (rejected), or annotated: only while its status is `from`. */
  | { t: 'set'; id: string; from: ChangeStatus; set: Partial<ChangeRecord>; at: number; by: Writer }
  /** One real call of change `id` (a version in force) for its canary; counted while fewer than `window` were. */
  | { t: 'call'; id: string; ok: boolean; window: number; error?: { code: string; message: string }; at: number; by: Writer }
  /** A record carried over from the older per-target lineage files, with the status it had there. */
  | { t: 'import'; record: ChangeRecord; by: Writer }
  /** Lines found damaged or refused (by where they lie), reported and recorded once. */
  | { t: 'repair'; lines: { at: number; why: string }[]; notes: string[]; at: number; by: Writer };

const encoder = new TextEncoder();

/** The checksum of `json`: CRC-32 of its UTF-8 bytes, 8 hex digits. */
export function checksum(json: string): string {
  return (crc32(encoder.encode(json)) >>> 0).toString(16).padStart(8, '0');
}

/** The journal line of `entry`. */
export function encodeEntry(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `${checksum(json)} ${json}`;
}

/** The entry a line holds, or why it holds none (torn, edited, not an entry). */
export function decodeEntry(line: string): { entry: JournalEntry } | { why: string } {
  const json = line.slice(9);
  if (line[8] !== ' ' || !/^[0-9a-f]{8}$/.test(line.slice(0, 8))) return { why: 'not a journal line (no checksum): torn or written by hand' };
  if (checksum(json) !== line.slice(0, 8)) return { why: 'its checksum does not match: cut short by a crash, or edited' };
  let entry: JournalEntry;
  try {
    entry = JSON.parse(json) as JournalEntry;
  } catch {
    return { why: 'not JSON despite its checksum' };
  }
  if (!entry || typeof entry !== 'object' || typeof entry.t !== 'string' || !entry.by || typeof entry.by.instance !== 'string') return { why: 'not a journal entry' };
  return { entry };
}
