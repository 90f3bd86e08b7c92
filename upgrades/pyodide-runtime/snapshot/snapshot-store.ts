/**
 * The start-up snapshot, host side: which snapshot a new worker restores, and where a snapshot
 * a worker made is kept — in memory for this process or page, and (mode `persist`) in a blob
 * cache for the next ones (Node: files under the data dir; browser: Cache Storage). The host
 * reads and writes it and passes the bytes in `init`: the worker never touches the cache.
 *
 * A snapshot is code: it is the interpreter's whole memory, run as is. It is keyed by the Pyodide
 * version and a hash of everything it holds (the prelude's source, the modules imported before
 * it is taken, the snapshot format), so a change to any of them makes a new one. No runtime
 * option is in it: the transport, the interrupt buffer, output, `fastExecute` and the working
 * directory are all set after a restore, the same way as after a fresh start.
 */
import type { BlobCache } from '../../../src/platform/platform.ts';
import { PYODIDE_VERSION, type InitResult } from '../protocol/protocol.ts';
import { BRIDGE_MODULE, RUNNER_MODULE, SNAPSHOT_PREIMPORTS } from '../python/python-prelude.ts';

/**
 * Where start-up snapshots are kept: `persist` (in memory and in the runtime's snapshot cache,
 * so the next process or page load restores it), `memory` (this process or page only), `off`
 * (every worker starts Python anew).
 */
export type SnapshotMode = 'persist' | 'memory' | 'off';

/** Bumped when what the worker puts in a snapshot changes in a way the hash does not see. */
const FORMAT = 1;

/** What a new worker is given: a snapshot to restore (and where it came from), and whether to make one. */
export interface SnapshotPlan {
  bytes?: Uint8Array;
  source?: 'memory' | 'cache';
  /** Take a snapshot if Python starts anew (none was given, or it failed to restore). */
  make: boolean;
}

/**
 * Snapshots made in this process or page, by index URL and key, shared by every runtime here;
 * `failed` when one made here did not restore (it would fail again).
 */
const inMemory = new Map<string, Uint8Array | 'failed'>();
/** Keys whose trouble was already reported in this process or page (say it once). */
const reported = new Set<string>();

/** Forgets the snapshots kept in memory, as a new process or page would start. For tests and benchmarks. */
export function forgetMemorySnapshots(): void {
  inMemory.clear();
  reported.clear();
}

let keyPromise: Promise<string> | undefined;

/** The cache key of the snapshot this build makes: `pyodide-<version>-<sha-256 of what it holds>.snapshot`. */
export function snapshotKey(): Promise<string> {
  keyPromise ??= snapshotKeyFor({ bridge: BRIDGE_MODULE, runner: RUNNER_MODULE });
  return keyPromise;
}

/**
 * The key of a snapshot holding this Python prelude (the text of `python/armature_bridge.py` and
 * `python/armature_runner.py`): any change to either makes another key.
 */
export async function snapshotKeyFor(python: { bridge: string; runner: string }): Promise<string> {
  const held = JSON.stringify({ format: FORMAT, pyodide: PYODIDE_VERSION, preimports: SNAPSHOT_PREIMPORTS, bridge: python.bridge, runner: python.runner });
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(held)));
  const hex = Array.from(digest.subarray(0, 12), (b) => b.toString(16).padStart(2, '0')).join('');
  return `pyodide-${PYODIDE_VERSION}-${hex}.snapshot`;
}

/** Options of {@link SnapshotStore}. */
export interface SnapshotStoreOptions {
  mode: SnapshotMode;
  /** Where `persist` keeps snapshots; without one, `persist` keeps them in memory only. */
  cache?: BlobCache;
  /** Where trouble is reported (once per key and process). Default: console.warn. */
  warn?: (message: string) => void;
}

/** Plans and keeps the start-up snapshots of one runtime. */
export class SnapshotStore {
  private readonly warn: (message: string) => void;
  /** Writes under way (awaited by `flush`, so a process does not exit in the middle of one). */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly o: SnapshotStoreOptions) {
    this.warn = o.warn ?? ((m) => console.warn(m));
  }

  /** The snapshot a worker for `indexURL` starts from, and whether it should make one. */
  async plan(indexURL: string): Promise<SnapshotPlan> {
    if (this.o.mode === 'off') return { make: false };
    const key = await snapshotKey();
    const kept = inMemory.get(`${indexURL}|${key}`);
    if (kept === 'failed') return { make: false };
    // A copy: the bytes are transferred to the worker, and the next restart needs them again.
    if (kept) return { bytes: kept.slice(), source: 'memory', make: false };
    const cache = this.persistent();
    if (cache) {
      try {
        const bytes = await cache.get(key);
        // Made again if it fails to restore, replacing the broken file.
        if (bytes) return { bytes, source: 'cache', make: true };
      } catch (e) {
        this.once(key, `[PyodideRuntime] the start-up snapshot cache could not be read (${(e as Error).message}); Python starts without it and a new snapshot is made.`);
      }
    }
    return { make: true };
  }

  /**
   * Keeps what the worker's start says about `plan`: a snapshot it made is kept (and written to
   * the cache in the background); a snapshot that did not restore is reported once, and not
   * offered again if it was made here. Never throws.
   */
  async settle(indexURL: string, plan: SnapshotPlan, result: InitResult): Promise<void> {
    const key = await snapshotKey();
    const id = `${indexURL}|${key}`;
    if (plan.bytes && !result.fromSnapshot) {
      const remade = result.snapshot ? ' A new snapshot was made.' : '';
      this.once(key, `[PyodideRuntime] the start-up snapshot${plan.source === 'cache' ? ' from the cache' : ''} could not be restored (${result.snapshotError ?? 'unknown error'}); Python started without it.${remade}`);
      if (plan.source === 'memory') inMemory.set(id, 'failed');
      else if (!result.snapshot) await this.persistent()?.delete(key).catch(() => undefined);
    }
    const made = result.snapshot;
    if (!made) return;
    inMemory.set(id, made);
    const cache = this.persistent();
    if (!cache) return;
    const write = (async () => {
      try {
        await cache.put(key, made);
        // Snapshots of other versions or preludes are never read again.
        for (const old of await cache.keys()) if (old !== key && old.endsWith('.snapshot')) await cache.delete(old);
      } catch (e) {
        this.once(`${key}:write`, `[PyodideRuntime] the start-up snapshot could not be kept (${(e as Error).message}); the next start will start Python anew.`);
      }
    })();
    // Not awaited: Python is ready without it; `flush` (on dispose) waits for it.
    this.writing = this.writing.then(() => write);
  }

  /** Resolves once every snapshot write has finished. */
  flush(): Promise<void> {
    return this.writing;
  }

  private persistent(): BlobCache | undefined {
    return this.o.mode === 'persist' ? this.o.cache : undefined;
  }

  private once(what: string, message: string): void {
    if (reported.has(what)) return;
    reported.add(what);
    this.warn(message);
  }
}
