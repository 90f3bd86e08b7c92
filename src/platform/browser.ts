import { openCacheStorage } from './browser-cache.ts';
import { openIndexedDbShared } from './browser-shared.ts';
import type { FileStore, Platform, ProjectFiles, StoredFile } from './platform.ts';

/** Options of {@link createBrowserPlatform}. */
export interface BrowserPlatformOptions {
  /** URL of the server's project snapshot endpoint. Default: `/__armature/project.json`. */
  projectUrl?: string;
  /** Prefix of IndexedDB database and Cache Storage names, so tests can isolate themselves. Default: `armature`. */
  dbPrefix?: string;
}

/** Project files as served by the Armature server (see `src/server/middleware.ts`). */
export interface ProjectSnapshot {
  files: Record<string, string>;
}

/** The browser platform: project files from one server snapshot, stores in IndexedDB, caches in Cache Storage. */
export function createBrowserPlatform(options: BrowserPlatformOptions = {}): Platform {
  const url = options.projectUrl ?? '/__armature/project.json';
  const prefix = options.dbPrefix ?? 'armature';
  let snapshot: Promise<ProjectSnapshot> | undefined;
  const files = () =>
    (snapshot ??= fetch(url).then(async (r) => {
      if (!r.ok) throw new Error(`[project] GET ${url} answered ${r.status}: serve the page with the Armature server or its middleware`);
      return (await r.json()) as ProjectSnapshot;
    }));
  const project: ProjectFiles = {
    async list(dir, ext) {
      const { files: all } = await files();
      return Object.keys(all)
        .filter((p) => p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes('/') && p.endsWith(ext))
        .sort();
    },
    async read(path) {
      const { files: all } = await files();
      const text = all[path];
      if (text === undefined) throw new Error(`[project] ${path} is not in the project snapshot served at ${url}`);
      return text;
    },
  };
  return { kind: 'browser', project, openStore: (name) => openIndexedDbStore(`${prefix}:${name}`),
    openShared: (name) => openIndexedDbShared(`${prefix}:shared:${name}`),
    openCache: (name) => openCacheStorage(`${prefix}:${name}`) };
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error ?? new Error('[store] IndexedDB transaction aborted'));
    tx.onerror = () => reject(tx.error);
  });
}

/**
 * A {@link FileStore} in one IndexedDB database with a `files` object store keyed by path.
 * Transactions use `durability: 'strict'`, so `put` resolves only once the data is on disk.
 */
export async function openIndexedDbStore(dbName: string): Promise<FileStore> {
  const open = indexedDB.open(dbName, 1);
  open.onupgradeneeded = () => open.result.createObjectStore('files', { keyPath: 'path' });
  const db = await request(open);
  const tx = (mode: IDBTransactionMode) => db.transaction('files', mode, { durability: 'strict' });
  return {
    async load() {
      const t = tx('readonly');
      const all = (await request(t.objectStore('files').getAll())) as StoredFile[];
      return all.map((f) => ({ path: f.path, data: new Uint8Array(f.data), mtime: f.mtime }));
    },
    async put(file) {
      const t = tx('readwrite');
      t.objectStore('files').put({ path: file.path, data: file.data, mtime: file.mtime });
      await done(t);
    },
    async delete(path) {
      const t = tx('readwrite');
      t.objectStore('files').delete(path);
      await done(t);
    },
    async close() {
      db.close();
    },
  };
}
