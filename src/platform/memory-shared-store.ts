/**
 * A {@link SharedStore} in memory: one backing that several handles share, as processes share a
 * folder. Tests open two change paths over one backing to play two processes; a platform without
 * durable storage can use it too (nothing survives the process).
 */
import type { JournalLine, SharedStore } from './platform.ts';

/** What the handles of one in-memory store share. */
export interface MemoryShared {
  /** The journal's lines, in order (a test may edit or tear one). */
  readonly lines: string[];
  readonly blobs: Map<string, Uint8Array>;
  /** A new handle on the store (a "process"). */
  open(): SharedStore;
}

/** Creates an empty in-memory backing. */
export function memoryShared(): MemoryShared {
  const lines: string[] = [];
  const blobs = new Map<string, Uint8Array>();
  const locks = new Map<string, Promise<unknown>>();
  const handles = new Set<{ notify(): void }>();
  return {
    lines,
    blobs,
    open() {
      const watchers = new Set<() => void>();
      const self = {
        notify() {
          if (watchers.size) setTimeout(() => [...watchers].forEach((w) => w()), 0);
        },
      };
      handles.add(self);
      const store: SharedStore = {
        location: 'memory',
        async read(cursor) {
          const out: JournalLine[] = [];
          for (let i = cursor; i < lines.length; i++) if (lines[i]) out.push({ text: lines[i]!, at: i });
          return { lines: out, cursor: lines.length, rest: 0 };
        },
        async append(line) {
          lines.push(line);
          for (const h of handles) if (h !== self) h.notify();
        },
        blob: (name) => blobs.get(name)?.slice(),
        async putBlob(name, data) {
          if (!blobs.has(name)) blobs.set(name, data.slice());
        },
        lock(key, fn) {
          const run = (locks.get(key) ?? Promise.resolve()).then(fn, fn);
          const settled = run.catch(() => undefined);
          locks.set(key, settled);
          void settled.then(() => locks.get(key) === settled && locks.delete(key));
          return run;
        },
        watch(listener) {
          watchers.add(listener);
          return { dispose: () => watchers.delete(listener) };
        },
        async close() {
          watchers.clear();
          handles.delete(self);
        },
      };
      return store;
    },
  };
}
