/**
 * The browser: a {@link SharedStore} in one IndexedDB database that every tab of the origin opens
 * at once. The journal is an object store with increasing keys (one record per line, added in its
 * own `durability: 'strict'` transaction: whole or not at all); blobs are a second object store,
 * mirrored in memory so they read synchronously (loaded at open, and what other tabs added when
 * their journal lines arrive); locks are Web Locks (released when their tab closes); other tabs
 * hear of an append through a BroadcastChannel.
 */
import { done, request } from './browser-idb.ts';
import type { JournalLine, SharedStore } from '../platform.ts';

/** Opens (creating if needed) the shared store in the IndexedDB database `dbName`. */
export async function openIndexedDbShared(dbName: string): Promise<SharedStore> {
  const opening = indexedDB.open(dbName, 1);
  opening.onupgradeneeded = () => {
    opening.result.createObjectStore('journal', { autoIncrement: true });
    opening.result.createObjectStore('blobs');
  };
  const db = await request(opening);
  const mirror = new Map<string, Uint8Array>();
  const loadBlobs = async () => {
    const t = db.transaction('blobs', 'readonly');
    const keys = (await request(t.objectStore('blobs').getAllKeys())) as string[];
    const missing = keys.filter((k) => !mirror.has(k));
    const values = await Promise.all(missing.map((k) => request(t.objectStore('blobs').get(k)) as Promise<Uint8Array>));
    missing.forEach((k, i) => mirror.set(k, new Uint8Array(values[i]!)));
  };
  await loadBlobs();
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(`armature-shared:${dbName}`) : undefined;
  const watchers = new Set<() => void>();
  if (channel) channel.onmessage = () => setTimeout(() => [...watchers].forEach((w) => w()), 0);
  // Without Web Locks (an insecure context), tabs are not excluded from each other: the journal's
  // fold still refuses a decision made over a stale view.
  const local = new Map<string, Promise<unknown>>();
  const localLock = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const run = (local.get(key) ?? Promise.resolve()).then(fn, fn);
    local.set(key, run.catch(() => undefined));
    return run;
  };

  return {
    location: `IndexedDB ${dbName}`,
    async read(cursor) {
      const t = db.transaction('journal', 'readonly');
      const range = IDBKeyRange.lowerBound(cursor, true);
      const [keys, values] = await Promise.all([request(t.objectStore('journal').getAllKeys(range)) as Promise<number[]>, request(t.objectStore('journal').getAll(range)) as Promise<string[]>]);
      if (!keys.length) return { lines: [], cursor, rest: 0 };
      // Lines of other tabs name blobs they wrote first: bring those into the mirror before anyone reads them.
      await loadBlobs();
      const lines: JournalLine[] = [];
      keys.forEach((k, i) => typeof values[i] === 'string' && values[i] && lines.push({ text: values[i]!, at: k }));
      return { lines, cursor: keys[keys.length - 1]!, rest: 0 };
    },
    async append(line) {
      const t = db.transaction('journal', 'readwrite', { durability: 'strict' });
      t.objectStore('journal').add(line);
      await done(t);
      channel?.postMessage('appended');
    },
    blob: (name) => mirror.get(name)?.slice(),
    async putBlob(name, data) {
      if (mirror.has(name)) return;
      const t = db.transaction('blobs', 'readwrite', { durability: 'strict' });
      t.objectStore('blobs').put(data.slice(), name);
      await done(t);
      mirror.set(name, data.slice());
    },
    lock(key, fn) {
      const locks = (globalThis.navigator as Navigator | undefined)?.locks;
      return locks ? (locks.request(`${dbName}:${key}`, { mode: 'exclusive' }, fn) as Promise<Awaited<ReturnType<typeof fn>>>) : localLock(key, fn);
    },
    watch(listener) {
      watchers.add(listener);
      return { dispose: () => watchers.delete(listener) };
    },
    async close() {
      watchers.clear();
      channel?.close();
      db.close();
    },
  };
}
