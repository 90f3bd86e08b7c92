// In-memory platform pieces for unit tests that isolate the kernel from disk and IndexedDB.
// The real adapters (src/platform/node.ts, browser.ts) are exercised by the integration suites.
import { memoryShared, type MemoryShared } from '../../src/platform/memory-shared-store.ts';
import { checkCacheKey, type BlobCache, type FileStore, type Platform, type ProjectFiles, type StoredFile } from '../../src/platform/platform.ts';

export function memoryProject(files: Record<string, string>): ProjectFiles {
  return {
    async list(dir, ext) {
      return Object.keys(files)
        .filter((p) => p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes('/') && p.endsWith(ext))
        .sort();
    },
    async read(path) {
      const t = files[path];
      if (t === undefined) throw new Error(`${path} does not exist`);
      return t;
    },
  };
}

export function memoryStore(initial: StoredFile[] = []): FileStore & { files: Map<string, StoredFile>; failNext?: Error } {
  const files = new Map(initial.map((f) => [f.path, f]));
  const store = {
    files,
    failNext: undefined as Error | undefined,
    async load() {
      return [...files.values()];
    },
    async put(f: StoredFile) {
      if (store.failNext) {
        const e = store.failNext;
        store.failNext = undefined;
        throw e;
      }
      files.set(f.path, f);
    },
    async delete(path: string) {
      files.delete(path);
    },
    async close() {},
  };
  return store;
}

export function memoryCache(): BlobCache & { blobs: Map<string, Uint8Array> } {
  const blobs = new Map<string, Uint8Array>();
  return {
    blobs,
    async get(key) {
      checkCacheKey(key);
      return blobs.get(key)?.slice();
    },
    async put(key, data) {
      checkCacheKey(key);
      blobs.set(key, data.slice());
    },
    async delete(key) {
      blobs.delete(key);
    },
    async keys() {
      return [...blobs.keys()].sort();
    },
  };
}

export function memoryPlatform(files: Record<string, string>): Platform {
  const stores = new Map<string, FileStore>();
  const caches = new Map<string, BlobCache>();
  const shared = new Map<string, MemoryShared>();
  return {
    kind: 'node',
    project: memoryProject(files),
    async openStore(name) {
      if (!stores.has(name)) stores.set(name, memoryStore());
      return stores.get(name)!;
    },
    async openShared(name) {
      if (!shared.has(name)) shared.set(name, memoryShared());
      return shared.get(name)!.open();
    },
    openCache(name) {
      if (!caches.has(name)) caches.set(name, memoryCache());
      return caches.get(name)!;
    },
  };
}
