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
}

/** Everything platform-specific the kernel and upgrades need. */
export interface Platform {
  /** Which platform this is. */
  readonly kind: 'node' | 'browser';
  /** The project's manifests and blueprints. */
  readonly project: ProjectFiles;
  /** Opens (creating if needed) the durable store called `name`, e.g. `workspace`. */
  openStore(name: string): Promise<FileStore>;
}
