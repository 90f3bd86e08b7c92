/**
 * Platform adapters: the only places that differ between Node and the browser.
 * Code that runs in both imports this contract, never an implementation.
 */
import type { ProcessDirectory } from '../kernel/journal/journal-layout.ts';

/** Read-only access to the project's own files (`modules/`, `blueprints/`). */
export interface ProjectFiles {
  /** Paths (relative to the project root, `/`-separated, sorted) of files in `dir` ending with `ext`. */
  list(dir: string, ext: string): Promise<string[]>;
  /** Text of the file at `path` (relative to the project root). Rejects naming the path if absent. */
  read(path: string): Promise<string>;
  /**
   * The folders this view stands for, when it stands for more than one: the package's own first,
   * then a user's root (`boot({ root })`, `armature --root DIR`). Manifests and blueprints are read
   * from each; `list` and `read` above see them together (a path both have reads as the
   * package's). Default: one folder, the package's.
   */
  layers?(): Promise<readonly ProjectLayer[]>;
}

/** One folder of project files: the package's own, or a user's root beside it. */
export interface ProjectLayer {
  /** `package` for Armature's own files, `root` for the user's folder. */
  kind: 'package' | 'root';
  /** Where it is, for messages: a path (Node) or a URL (browser). */
  location: string;
  /** Its files. */
  files: ProjectFiles;
  /**
   * The URL its upgrades' modules are imported from (`upgrades/<folder>/index.js` is resolved
   * against it): a `file:` URL in Node, the server's `/__armature/root/` in a browser. Set for a
   * root; the package's own upgrades are part of the build.
   */
  moduleBase?: string;
}

/** The layers of `project`: its own, or the package's alone. */
export async function projectLayers(project: ProjectFiles): Promise<readonly ProjectLayer[]> {
  return project.layers ? project.layers() : [{ kind: 'package', location: 'the package', files: project }];
}

/**
 * One view of several layers (see {@link ProjectFiles.layers}): `list` gives every layer's files
 * once, `read` the first layer's that has the path.
 */
export function layeredProjectFiles(layers: readonly ProjectLayer[]): ProjectFiles {
  return {
    layers: async () => layers,
    async list(dir, ext) {
      const all = await Promise.all(layers.map((l) => l.files.list(dir, ext)));
      return [...new Set(all.flat())].sort();
    },
    async read(path) {
      let first: unknown;
      for (const layer of layers) {
        try {
          return await layer.files.read(path);
        } catch (e) {
          first ??= e;
        }
      }
      throw first;
    },
  };
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

/** A stored file's metadata, as {@link FileStore.scan} lists it. */
export interface StoredFileInfo {
  path: string;
  size: number;
  /** Modification time, ms since the epoch. */
  mtime: number;
}

/** Durable storage for a set of files (IndexedDB in the browser, a directory in Node). */
export interface FileStore {
  /** Every stored file. */
  load(): Promise<StoredFile[]>;
  /**
   * Every stored file's path, size and mtime, without its contents, sorted by path: what a reader
   * compares to notice what other processes wrote (then reads those with `get`). Stores several
   * processes cannot share (IndexedDB in one tab) leave it out.
   */
  scan?(): Promise<StoredFileInfo[]>;
  /** The stored file at `path`, or undefined when absent. Present wherever `scan` is. */
  get?(path: string): Promise<StoredFile | undefined>;
  /** Stores `file`; resolves only once it is durable (a crash after this loses nothing). */
  put(file: StoredFile): Promise<void>;
  /** Removes the file at `path`; resolves once durable. Absent paths are ignored. */
  delete(path: string): Promise<void>;
  /** Releases handles. */
  close(): Promise<void>;
  /** The folder holding the files as files, when the store is one (Node); undefined elsewhere. */
  readonly folder?: string;
}

/** One complete line of a {@link SharedStore}'s journal, with where it lies (for reports). */
export interface JournalLine {
  /** The line's text, without its line break. */
  text: string;
  /** Where it starts: a byte offset (Node), a record key (IndexedDB), an index (memory). */
  at: number;
}

/**
 * A store several processes (or tabs) use at once on one data folder: an append-only journal of
 * text lines, write-once blobs, exclusive locks that die with their holder, and notice of what the
 * others wrote. The change path keeps its history here (`openShared('changes')`): Node keeps it in
 * files under the data folder, the browser in IndexedDB (locks: Web Locks; notices: a
 * BroadcastChannel).
 */
export interface SharedStore {
  /** Where it lives, for messages (a folder, a database name). */
  readonly location: string;
  /**
   * The complete lines after `cursor` (0: from the start) and the cursor after them. A line still
   * being written (no line break yet) is left for a later read: `rest` counts its bytes (a line
   * that stays unfinished was cut short by a crash; the next append ends it). Empty lines are skipped.
   */
  read(cursor: number): Promise<{ lines: JournalLine[]; cursor: number; rest: number }>;
  /**
   * Appends one line (no line breaks inside); resolves once durable. Appends from every process
   * are whole lines, never interleaved; one cut short by a crash stays a line of its own.
   */
  append(line: string): Promise<void>;
  /** The blob called `name` (letters, digits, `.`, `-`), or undefined when absent. */
  blob(name: string): Uint8Array | undefined;
  /** Stores a blob under a name that is not taken yet (a taken name is left as it is); resolves once durable. */
  putBlob(name: string, data: Uint8Array): Promise<void>;
  /**
   * Runs `fn` holding the exclusive lock `key` across every process on the store, and releases it
   * after. A holder that died (its process is gone) loses the lock. Rejects with `STORE_BUSY` when
   * a live holder keeps it past the timeout.
   */
  lock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Calls `listener` (soon, not at once) when another process may have appended; the result stops it. */
  watch(listener: () => void): { dispose(): void };
  /** Releases handles and watchers. */
  close(): Promise<void>;
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
  /**
   * Node: the data folder (absolute), where stores, caches and this process's journal live.
   * Undefined in the browser and for platforms without one.
   */
  readonly dataDir?: string;
  /** The project's manifests and blueprints. */
  readonly project: ProjectFiles;
  /** Opens (creating if needed) the durable store called `name`, e.g. `workspace`. */
  openStore(name: string): Promise<FileStore>;
  /** Opens (creating if needed) the {@link SharedStore} called `name`, e.g. `changes`. */
  openShared(name: string): Promise<SharedStore>;
  /**
   * The blob cache called `name`, e.g. `pyodide-snapshot`. Nothing is read or written until the
   * cache is used (Node: `<dataDir>/cache/<name>/`; browser: Cache Storage).
   */
  openCache(name: string): BlobCache;
  /**
   * Node, with a data folder: the processes on it (`armature agent`, `armature mcp`, a dashboard,
   * a library `boot()`), each live or how it ended, read from their journals' folders when asked,
   * so that what another process started (a run without an end in its transcript) can be told
   * still going from cut short. Undefined in the browser: a tab's system is alone in its store.
   */
  readonly processes?: ProcessDirectory;
}
