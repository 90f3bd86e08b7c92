import { checkCacheKey, type BlobCache } from '../platform.ts';

/**
 * A {@link BlobCache} in Cache Storage (the cache named `cacheName`), each blob under a URL of the
 * page's origin that no server answers. Cache Storage exists only in secure contexts (https or
 * localhost); elsewhere `get` finds nothing and `put` rejects saying why.
 */
export function openCacheStorage(cacheName: string): BlobCache {
  const storage = (globalThis as { caches?: CacheStorage }).caches;
  const url = (key: string) => {
    checkCacheKey(key);
    return new URL(`/__armature/cache/${encodeURIComponent(cacheName)}/${key}`, location.origin).href;
  };
  const unavailable = () => new Error(`[cache] Cache Storage is not available here (the page is not a secure context: serve it over https or from localhost), so ${cacheName} cannot be kept`);
  const open = () => (storage ? storage.open(cacheName) : Promise.reject(unavailable()));
  return {
    async get(key) {
      const target = url(key);
      if (!storage) return undefined;
      const hit = await (await open()).match(target);
      return hit ? new Uint8Array(await hit.arrayBuffer()) : undefined;
    },
    async put(key, data) {
      const target = url(key);
      // A Response is only stored once its whole body is read, so a reader never sees a torn blob.
      const body = new Blob([data as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' });
      await (await open()).put(target, new Response(body, { headers: { 'content-length': String(data.byteLength) } }));
    },
    async delete(key) {
      const target = url(key);
      if (storage) await (await open()).delete(target);
    },
    async keys() {
      if (!storage) return [];
      const prefix = url('x').slice(0, -1);
      return (await (await open()).keys()).map((r) => r.url).filter((u) => u.startsWith(prefix)).map((u) => u.slice(prefix.length)).sort();
    },
  };
}
