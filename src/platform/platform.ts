/**
 * Platform adapters: the only places that differ between Node and the browser.
 * Code that runs in both imports this contract, never an implementation.
 */

/** Read-only access to the project's own files (`modules/`, `blueprints/`). */
export interface ProjectFiles {
  /** Paths (relative to the project root, `/`-separated, sorted) of files in `dir` ending with `ext`. */
  list(dir: string, ext: string): Promise<string[]>;
  /** Text of the file at `path` (relative to the project root). Rejects naming the path if absent. */
  read(path: string): Promise<string>;
}

/** One persisted file. */
export interface StoredFile {
  /** Normalized workspace path, e.g. `data/a.csv`. */
  path: string;
  /** File contents. */
  data: Uint8Array;
  /** Modification time, ms since the epoch. */
  mtime: number;
}

/** Durable storage for a set of files (IndexedDB in the browser, a directory in Node). */
export interface FileStore {
  /** Every stored file. */
  load(): Promise<StoredFile[]>;
  /** Stores `file`; resolves only once it is durable (a crash after this loses nothing). */
  put(file: StoredFile): Promise<void>;
  /** Removes the file at `path`; resolves once durable. Absent paths are ignored. */
  delete(path: string): Promise<void>;
  /** Releases handles. */
  close(): Promise<void>;
  /** The folder holding the files as files, when the store is one (Node); undefined elsewhere. */
  readonly folder?: string;
}

/**
 * A cache of blobs by key (files under the data dir in Node, Cache Storage in the browser).
 * What it holds can be re-made: a missing or unreadable entry reads as absent. Keys are
 * letters, digits, `.`, `_` and `-`.
 */
export interface BlobCache {
  /** The blob stored under `key`, or undefined when there is none. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Stores `data` under `key`, replacing any blob there; resolves once it is durable and whole. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** Removes the blob under `key`; absent keys are ignored. */
  delete(key: string): Promise<void>;
  /** Every key with a blob, sorted. */
  keys(): Promise<string[]>;
  /** The folder holding the blobs as files, when the cache is one (Node); undefined elsewhere. */
  readonly folder?: string;
}

/** Throws unless `key` is a valid {@link BlobCache} key. */
export function checkCacheKey(key: string): void {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(key) || key.startsWith('.')) {
    throw new Error(`[cache] invalid key ${JSON.stringify(key)}: use 1-200 letters, digits, '.', '_' and '-', not starting with '.'`);
  }
}

/** Everything platform-specific the kernel and upgrades need. */
export interface Platform {
  /** Which platform this is. */
  readonly kind: 'node' | 'browser';
  /** The project's manifests and blueprints. */
  readonly project: ProjectFiles;
  /** Opens (creating if needed) the durable store called `name`, e.g. `workspace`. */
  openStore(name: string): Promise<FileStore>;
  /**
   * The blob cache called `name`, e.g. `pyodide-snapshot`. Nothing is read or written until the
   * cache is used (Node: `<dataDir>/cache/<name>/`; browser: Cache Storage).
   */
  openCache(name: string): BlobCache;
}
