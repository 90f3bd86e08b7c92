import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { orphanedTempName, syncDir, TEMP_MARK, writeFileAtomic } from './node-files.ts';
import { checkCacheKey, type BlobCache } from './platform.ts';

/**
 * A {@link BlobCache} in the folder `dir`, one file per key, created on the first `put`. Blobs are
 * written atomically (temporary file, fsync, rename), so a reader never sees a torn one; the
 * temporary files of writers that were killed are removed when the keys are listed.
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
        const names = await readdir(dir);
        // A writer killed mid-write (a start-up snapshot is ~20 MB) leaves its temporary file: removed here.
        for (const n of names) if (orphanedTempName(n)) await rm(join(dir, n), { force: true });
        return names.filter((n) => !n.includes(TEMP_MARK)).sort();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
  };
}
