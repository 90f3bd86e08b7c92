import { openCacheStorage } from './browser-cache.ts';
import { done, request } from './browser-idb.ts';
import { openIndexedDbShared } from './browser-shared.ts';
import type { FileStore, Platform, ProjectFiles, StoredFile } from '../platform.ts';

/** Options of {@link createBrowserPlatform}. */
export interface BrowserPlatformOptions {
  /** URL of the server's project snapshot endpoint. Default: `/__armature/project.json`. */
  projectUrl?: string;
  /** Prefix of IndexedDB database and Cache Storage names, so tests can isolate themselves. Default: `armature`. */
  dbPrefix?: string;
}

/** Project files as served by the Armature server (see `src/server/project-snapshot.ts`). */
export interface ProjectSnapshot {
  /** The package's manifests and blueprints, by path. */
  files: Record<string, string>;
  /** A user's root served beside them (`startServer({ root })`): its files, by path. Default: none. */
  root?: { files: Record<string, string> };
}

/** Where a server serves the modules of a root's upgrades (`upgrades/<folder>/*.js` under it). */
export const ROOT_MODULES_PATH = '/__armature/root/';

/** Project files held in memory as `{ path: text }`; `where` names them in errors. */
function snapshotFiles(get: () => Promise<Record<string, string>>, where: string): ProjectFiles {
  return {
    async list(dir, ext) {
      const all = await get();
      return Object.keys(all)
        .filter((p) => p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes('/') && p.endsWith(ext))
        .sort();
    },
    async read(path) {
      const text = (await get())[path];
      if (text === undefined) throw new Error(`[project] ${path} is not in ${where}`);
      return text;
    },
  };
}

/** The browser platform: project files from one server snapshot, stores in IndexedDB, caches in Cache Storage. */
export function createBrowserPlatform(options: BrowserPlatformOptions = {}): Platform {
  const url = options.projectUrl ?? '/__armature/project.json';
  const prefix = options.dbPrefix ?? 'armature';
  let snapshot: Promise<ProjectSnapshot> | undefined;
  const load = () =>
    (snapshot ??= fetch(url).then(async (r) => {
      if (!r.ok) throw new Error(`[project] GET ${url} answered ${r.status}: serve the page with the Armature server or its middleware`);
      return (await r.json()) as ProjectSnapshot;
    }));
  const own = snapshotFiles(async () => (await load()).files, `the project snapshot served at ${url}`);
  const rootFiles = snapshotFiles(async () => (await load()).root?.files ?? {}, `the root of the project snapshot served at ${url}`);
  const project: ProjectFiles = {
    list: async (dir, ext) => {
      const [a, b] = await Promise.all([own.list(dir, ext), rootFiles.list(dir, ext)]);
      return [...new Set([...a, ...b])].sort();
    },
    read: (path) =>
      own.read(path).catch(async (e: unknown) => {
        if ((await load()).root) return rootFiles.read(path);
        throw e;
      }),
    async layers() {
      const base = typeof location === 'undefined' ? undefined : new URL(ROOT_MODULES_PATH, location.href).href;
      return (await load()).root
        ? [
            { kind: 'package', location: 'the package', files: own },
            { kind: 'root', location: base ?? ROOT_MODULES_PATH, files: rootFiles, ...(base ? { moduleBase: base } : {}) },
          ]
        : [{ kind: 'package', location: 'the package', files: own }];
    },
  };
  return { kind: 'browser', project, openStore: (name) => openIndexedDbStore(`${prefix}:${name}`),
    openShared: (name) => openIndexedDbShared(`${prefix}:shared:${name}`),
    openCache: (name) => openCacheStorage(`${prefix}:${name}`) };
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
