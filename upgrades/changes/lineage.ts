/**
 * Where the change path keeps its history, in the workspace's hidden system area `changes`:
 *
 * - `versions/<sha256>.json`: each version's content, `{ kind, target, content }` as canonical
 *   JSON, named by the sha256 of those bytes and written once (an existing address is never
 *   written again);
 * - `lineage/<kind>/<target>.jsonl`: one line per event of a change, appended, never rewritten:
 *   the whole record when it is first decided, then `{ id, at, set }` for each later transition.
 *
 * The records in force are the lines folded in order. Nothing is ever overwritten in place.
 */
import type { ChangeKind, ChangeRecord } from '../../src/contracts/change-contract.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { SystemArea } from '../workspace/contract.ts';
import { canonicalJson, sha256Hex } from './content-hash.ts';

/** The area's name. */
export const CHANGES_AREA = 'changes';

/** A stored version: what its address was computed from. */
export interface StoredVersion {
  kind: ChangeKind;
  target: string;
  content: unknown;
}

/** One line of a lineage file. */
type LineageLine = { record: ChangeRecord } | { id: string; at: number; set: Partial<ChangeRecord> };

const HASH = /^[0-9a-f]{64}$/;

/** The versions and lineage of every change, over a system area. */
export class LineageStore {
  constructor(private readonly area: SystemArea) {}

  /**
   * Every record, folded from the lineage files, in the order first recorded. Lines that cannot
   * be read (a torn write, an edited file) are skipped and described in `problems`.
   */
  load(): { records: ChangeRecord[]; problems: string[] } {
    const byId = new Map<string, ChangeRecord>();
    const problems: string[] = [];
    for (const file of this.area.list('lineage')) {
      let text: string | undefined;
      try {
        text = this.area.readText(file.path);
      } catch (e) {
        problems.push(`${file.path}: not UTF-8 text (${(e as Error).message})`);
        continue;
      }
      (text ?? '').split('\n').forEach((raw, i) => {
        if (!raw.trim()) return;
        let line: LineageLine;
        try {
          line = JSON.parse(raw) as LineageLine;
        } catch {
          problems.push(`${file.path}:${i + 1}: not JSON`);
          return;
        }
        if ('record' in line && line.record && typeof line.record.id === 'string') byId.set(line.record.id, { ...line.record });
        else if ('set' in line && typeof line.id === 'string' && byId.has(line.id)) Object.assign(byId.get(line.id)!, line.set);
        else problems.push(`${file.path}:${i + 1}: not a lineage line`);
      });
    }
    return { records: [...byId.values()], problems };
  }

  /** Appends a new change's whole record to its target's lineage; resolves once durable. */
  async record(record: ChangeRecord): Promise<void> {
    await this.area.append(lineagePath(record.kind, record.target), `${JSON.stringify({ record })}\n`);
  }

  /** Appends one transition of `record` (the fields that changed); resolves once durable. */
  async transition(record: ChangeRecord, set: Partial<ChangeRecord>): Promise<void> {
    await this.area.append(lineagePath(record.kind, record.target), `${JSON.stringify({ id: record.id, at: Date.now(), set })}\n`);
  }

  /** Stores a version (unless its address already holds it) and resolves to its sha256. */
  async writeVersion(version: StoredVersion): Promise<string> {
    const text = canonicalJson(version);
    const hash = await sha256Hex(text);
    if (this.area.read(versionPath(hash)) === undefined) await this.area.write(versionPath(hash), text);
    return hash;
  }

  /**
   * The version at `hash`, or `undefined` when absent. With `verify`, its bytes are hashed again
   * and a mismatch throws `VERSION_CORRUPTED` (an edited or damaged file never loads).
   */
  async readVersion(hash: string, verify = true): Promise<StoredVersion | undefined> {
    const data = this.peekBytes(hash);
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
    const data = this.peekBytes(hash);
    if (data === undefined) return undefined;
    try {
      return parseVersion(hash, data);
    } catch {
      return undefined;
    }
  }

  private peekBytes(hash: string): Uint8Array | undefined {
    if (!HASH.test(hash)) return undefined;
    return this.area.read(versionPath(hash));
  }
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

/** Area path of a target's lineage file. */
export function lineagePath(kind: ChangeKind, target: string): string {
  return `lineage/${kind}/${target}.jsonl`;
}

/** Area path of a version. */
export function versionPath(hash: string): string {
  return `versions/${hash}.json`;
}
