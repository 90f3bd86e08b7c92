/**
 * The start-up snapshots of confined Python children (`process` isolation), kept by the host: a
 * child may write nowhere, so its `SnapshotStore` works over `cache` messages answered here. A
 * snapshot is code, and one a child made (which the host cannot check) is only ever restored in
 * children — never by an unconfined runtime, whose cache clean-up (of `*.snapshot` keys) also
 * leaves these alone.
 */
import type { FromChild } from '../protocol/process-protocol.ts';
import type { ResolvedOptions } from '../host/runtime-options.ts';

/**
 * Start-up snapshots made by confined children when the host keeps none on disk (`snapshot:
 * 'memory'`, or no `snapshotCache`), by key: shared by the runtimes of this process.
 */
const childSnapshots = new Map<string, Uint8Array>();
/** The keys a child may use: those `snapshot-store.ts` makes. */
export const SNAPSHOT_KEY = /^pyodide-[\w.+-]{1,40}-[0-9a-f]{8,64}\.snapshot$/;
/** Appended to the key of a child's snapshot in the host's cache (see above). */
const CHILD_SUFFIX = '.confined';
/** The file (in the host's cache folder) of a child's snapshot under `key`. */
export const childSnapshotFile = (key: string): string => key + CHILD_SUFFIX;

/** The folder a child may read its snapshots from itself: the disk cache's, when snapshots persist there. */
export function childSnapshotFolder(o: ResolvedOptions): string | undefined {
  return o.snapshot === 'persist' ? o.snapshotCache?.folder : undefined;
}

/** Largest snapshot a child may store (Pyodide's are ~20 MB). */
const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;

/** What answers a child's `cache` request: the value, or why not. */
export type CacheAnswer = { ok: true; value: Uint8Array | string[] | undefined } | { ok: false; message: string };

/**
 * Performs one `cache` request of a child: on disk in `persist` mode with a cache, else in this
 * process's memory. Never rejects.
 */
export async function answerCache(o: ResolvedOptions, msg: Extract<FromChild, { type: 'cache' }>): Promise<CacheAnswer> {
  const disk = o.snapshot === 'persist' ? o.snapshotCache : undefined;
  try {
    if (o.snapshot === 'off') throw new Error('start-up snapshots are off');
    let value: Uint8Array | string[] | undefined;
    if (msg.op === 'keys') {
      const keys = disk ? (await disk.keys()).filter((k) => k.endsWith(CHILD_SUFFIX)).map((k) => k.slice(0, -CHILD_SUFFIX.length)) : [...childSnapshots.keys()];
      value = keys.filter((k) => SNAPSHOT_KEY.test(k));
    } else {
      if (!SNAPSHOT_KEY.test(msg.key)) throw new Error(`${JSON.stringify(msg.key.slice(0, 80))} is not a start-up snapshot key`);
      const key = childSnapshotFile(msg.key);
      if (msg.op === 'get') value = disk ? await disk.get(key) : childSnapshots.get(key)?.slice();
      else if (msg.op === 'delete') await (disk ? disk.delete(key) : childSnapshots.delete(key));
      else if (msg.bytes.byteLength > MAX_SNAPSHOT_BYTES) throw new Error(`a snapshot of ${msg.bytes.byteLength} bytes is over the ${MAX_SNAPSHOT_BYTES}-byte limit`);
      else if (disk) await disk.put(key, msg.bytes);
      else childSnapshots.set(key, msg.bytes);
    }
    return { ok: true, value };
  } catch (e) {
    return { ok: false, message: String((e as Error)?.message ?? e) };
  }
}
