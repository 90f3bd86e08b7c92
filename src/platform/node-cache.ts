import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir, TEMP_MARK, writeFileAtomic } from './node-files.ts';
import { checkCacheKey, type BlobCache } from './platform.ts';

/**
 * A {@link BlobCache} in the folder `dir`, one file per key, created on the first `put`. Blobs are
 * written atomically (temporary file, fsync, rename), so a reader never sees a torn one.
 */
export function openDirectoryCache(dir: string): BlobCache {
  return {
    folder: dir,
    async get(key) {
      checkCacheKey(key);
      try {
        const data = await readFile(join(dir, key));
        return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    async put(key, data) {
      checkCacheKey(key);
      await writeFileAtomic(join(dir, key), data);
    },
    async delete(key) {
      checkCacheKey(key);
      await rm(join(dir, key), { force: true });
      await syncDir(dir);
    },
    async keys() {
      try {
        return (await readdir(dir)).filter((n) => !n.includes(TEMP_MARK)).sort();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}
