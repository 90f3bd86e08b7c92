import { ArmatureError } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { FileStore } from '../../src/platform/platform.ts';
import { fromBase64, toBase64, tryDecodeUtf8 } from './encoding.ts';
import { InvalidPathError, normalizePath } from './paths.ts';
import type { FileInfo, ListFilesValue, ReadFileValue, SystemArea, WorkspaceApi, WorkspaceReload } from './contract.ts';
import { createSystemArea, isSystemPath, SYSTEM_FOLDER } from './system-area.ts';

export type { FileInfo, ListFilesValue, ReadFileValue, WorkspaceApi } from './contract.ts';

/** Options of {@link createWorkspace}. */
export interface WorkspaceOptions {
  /** Durable store (IndexedDB or a directory). */
  store: FileStore;
  /** Where `workspace:written` / `workspace:deleted` go. */
  bus: Pick<EventSource, 'emit'>;
  /** Largest single file in bytes. Default: 50 MiB. */
  maxFileBytes?: number;
  /**
   * The workspace's size quota in bytes (its hidden system folder included): a write past it fails
   * with `WORKSPACE_FULL`, naming the quota and what is in use. Default: 500 MiB.
   */
  maxTotalBytes?: number;
}

interface Entry {
  data: Uint8Array;
  mtime: number;
}

/**
 * An in-memory file system for agents, persisted through a {@link FileStore}. Store operations
 * run one at a time in call order, so what is on disk always ends in the order callers asked.
 * A write that fails to persist is rolled back in memory and reported. Every store keeps the same
 * files: names a store could not keep distinct are refused (`normalizePath`), and a file never
 * takes a folder's name or sits inside a file (`PATH_CONFLICT`), which IndexedDB would allow
 * and a directory cannot hold.
 */
export async function createWorkspace(options: WorkspaceOptions): Promise<WorkspaceApi> {
  const { store, bus } = options;
  const maxFile = options.maxFileBytes ?? 50 * 1024 * 1024;
  const maxTotal = options.maxTotalBytes ?? 500 * 1024 * 1024;
  const files = new Map<string, Entry>();
  /** Folder path -> files under it: a file may not take a folder's name, nor sit inside a file. */
  const folders = new Map<string, number>();
  const count = (path: string, delta: 1 | -1) => {
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) {
      const folder = path.slice(0, i);
      const n = (folders.get(folder) ?? 0) + delta;
      if (n > 0) folders.set(folder, n);
      else folders.delete(folder);
    }
  };
  let total = 0;
  for (const f of await store.load()) {
    files.set(f.path, { data: f.data, mtime: f.mtime });
    count(f.path, 1);
    total += f.data.byteLength;
  }
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = queue.then(op, op);
    queue = next.catch(() => undefined);
    return next;
  };
  /** Paths with a store operation queued or under way: memory is ahead of the store there, and a reload leaves them be. */
  const inFlight = new Map<string, number>();
  const persist = <T>(p: string, op: () => Promise<T>): Promise<T> => {
    inFlight.set(p, (inFlight.get(p) ?? 0) + 1);
    return serial(async () => {
      try {
        return await op();
      } finally {
        const n = inFlight.get(p)! - 1;
        if (n) inFlight.set(p, n);
        else inFlight.delete(p);
      }
    });
  };
  const get = (path: string): Entry => {
    const p = userPath(path);
    const e = files.get(p);
    if (!e) {
      throw new ArmatureError('FILE_NOT_FOUND', `[workspace] no file ${JSON.stringify(p)}`, {
        details: { path: p },
        hint: 'List the files with list_files.',
      });
    }
    return e;
  };
  const info = (path: string, e: Entry): FileInfo => ({ path, size: e.data.byteLength, mtime: e.mtime });

  /** A path of the ordinary API: normalized, and never inside the hidden system folder. */
  const userPath = (path: unknown): string => {
    const p = normalizePath(path);
    if (isSystemPath(p)) throw new InvalidPathError(path, `"${SYSTEM_FOLDER}/" is reserved for the system's own records`);
    return p;
  };

  /** Why a new file cannot be at `p`: it is a folder, or a folder on its way is a file. */
  const conflictOf = (p: string): string | undefined => {
    const held = folders.get(p);
    if (held) return `${p} is a folder (it holds ${held} file${held === 1 ? '' : 's'})`;
    for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) {
      if (files.has(p.slice(0, i))) return `${p.slice(0, i)} is a file`;
    }
    return undefined;
  };

  /** Creates or replaces the normalized path `p`; `announce` emits `workspace:written`. */
  const put = (p: string, bytes: Uint8Array, announce: boolean): Promise<FileInfo & { created: boolean }> => {
    if (bytes.byteLength > maxFile) {
      return Promise.reject(
        new ArmatureError('FILE_TOO_LARGE', `[workspace] ${JSON.stringify(p)} is ${bytes.byteLength} bytes; the limit is ${maxFile}`, {
          hint: 'Split the data into several files.',
        }),
      );
    }
    const prior = files.get(p);
    const newTotal = total - (prior?.data.byteLength ?? 0) + bytes.byteLength;
    if (newTotal > maxTotal) {
      return Promise.reject(
        new ArmatureError(
          'WORKSPACE_FULL',
          `[workspace] writing ${JSON.stringify(p)} (${bytes.byteLength} bytes) would take the workspace to ${newTotal} bytes, past its quota of ${maxTotal} bytes (${total} bytes are in use)`,
          {
            details: { path: p, size: bytes.byteLength, used: total, quota: maxTotal },
            hint: 'Delete files you no longer need (list_files shows their sizes), or raise the quota: boot({ config: { Workspace: { maxTotalBytes } } }).',
          },
        ),
      );
    }
    if (!prior) {
      const conflict = conflictOf(p);
      if (conflict) {
        return Promise.reject(
          new ArmatureError('PATH_CONFLICT', `[workspace] cannot write ${JSON.stringify(p)}: ${conflict}`, {
            details: { path: p },
            hint: 'Choose another name, or delete what holds this one first.',
          }),
        );
      }
      count(p, 1);
    }
    // Strictly increasing mtimes per file make "changed since" checks reliable even within one ms.
    const mtime = Math.max(Date.now(), (prior?.mtime ?? 0) + 1);
    const entry = { data: bytes, mtime };
    files.set(p, entry);
    total = newTotal;
    return persist(p, async () => {
      try {
        await store.put({ path: p, data: bytes, mtime });
      } catch (e) {
        if (files.get(p) === entry) {
          if (prior) files.set(p, prior);
          else {
            files.delete(p);
            count(p, -1);
          }
          total += (prior?.data.byteLength ?? 0) - bytes.byteLength;
        }
        throw new ArmatureError('PERSIST_FAILED', `[workspace] could not persist ${JSON.stringify(p)}: ${(e as Error).message}`, { cause: e });
      }
      if (announce) bus.emit('workspace:written', { path: p, size: bytes.byteLength, mtime });
      return { path: p, size: bytes.byteLength, mtime, created: !prior };
    });
  };

  /** Deletes the normalized path `p`; `announce` emits `workspace:deleted`. */
  const remove = (p: string, announce: boolean): Promise<boolean> => {
    const prior = files.get(p);
    if (!prior) return Promise.resolve(false);
    files.delete(p);
    count(p, -1);
    total -= prior.data.byteLength;
    return persist(p, async () => {
      try {
        await store.delete(p);
      } catch (e) {
        if (!files.has(p)) {
          files.set(p, prior);
          count(p, 1);
          total += prior.data.byteLength;
        }
        throw new ArmatureError('PERSIST_FAILED', `[workspace] could not delete ${JSON.stringify(p)}: ${(e as Error).message}`, { cause: e });
      }
      if (announce) bus.emit('workspace:deleted', { path: p });
      return true;
    });
  };

  /** Files under the folder `p` (every file when empty), sorted by path. */
  const under = (p: string): FileInfo[] =>
    [...files.entries()]
      .filter(([path]) => !p || path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`))
      .map(([path, e]) => info(path, e))
      .sort((a, b) => (a.path < b.path ? -1 : 1));

  /** Drops `p` from memory (a reload found it gone); true when it was there. */
  const forget = (p: string): boolean => {
    const e = files.get(p);
    if (!e) return false;
    files.delete(p);
    count(p, -1);
    total -= e.data.byteLength;
    return true;
  };

  /**
   * Brings memory up to what the store holds now (another process wrote there): lists the store
   * (metadata only where it can, `FileStore.scan`), reads just the files whose size or mtime
   * differ, and forgets those gone. Runs in the store's queue, and leaves alone the paths whose own
   * writes are still on their way. User files changed emit `workspace:written` / `workspace:deleted`;
   * any change emits `workspace:reloaded` (system areas included, by name).
   */
  const reload = (): Promise<WorkspaceReload> =>
    serial(async () => {
      const loaded = store.scan ? undefined : new Map((await store.load()).map((f) => [f.path, f]));
      const listed = loaded ? [...loaded.values()].map((f) => ({ path: f.path, size: f.data.byteLength, mtime: f.mtime })) : await store.scan!();
      const onDisk = new Set(listed.map((f) => f.path));
      const written: string[] = [];
      const deleted = [...files.keys()].filter((p) => !onDisk.has(p) && !inFlight.has(p) && forget(p));
      for (const f of listed) {
        const e = files.get(f.path);
        if (inFlight.has(f.path) || (e && e.mtime === f.mtime && e.data.byteLength === f.size)) continue;
        const got = loaded ? loaded.get(f.path) : await store.get!(f.path);
        if (!got || (!e && conflictOf(f.path))) continue;
        if (e) total -= e.data.byteLength;
        else count(f.path, 1);
        files.set(f.path, { data: got.data, mtime: got.mtime });
        total += got.data.byteLength;
        written.push(f.path);
      }
      const areaNames = new Set<string>();
      for (const p of [...written, ...deleted]) {
        if (isSystemPath(p)) {
          const name = p.split('/')[1];
          if (name) areaNames.add(name);
        } else if (written.includes(p)) {
          const e = files.get(p)!;
          bus.emit('workspace:written', { path: p, size: e.data.byteLength, mtime: e.mtime });
        } else bus.emit('workspace:deleted', { path: p });
      }
      const result = { files: written.length + deleted.length, areas: [...areaNames].sort() };
      if (result.files) bus.emit('workspace:reloaded', result);
      return result;
    });

  const areas = new Map<string, SystemArea>();

  return {
    ...(store.folder ? { folder: store.folder } : {}),
    list(prefix) {
      const all = under(prefix ? userPath(prefix) : '');
      return prefix ? all : all.filter((f) => !isSystemPath(f.path));
    },
    stat(path) {
      const p = userPath(path);
      const e = files.get(p);
      return e ? info(p, e) : undefined;
    },
    read: (path) => get(path).data,
    readText(path) {
      const text = tryDecodeUtf8(get(path).data);
      if (text === undefined) {
        throw new ArmatureError('NOT_TEXT', `[workspace] ${JSON.stringify(normalizePath(path))} is not UTF-8 text`, {
          hint: 'Read it with encoding "base64".',
        });
      }
      return text;
    },
    write(path, data) {
      let p: string;
      try {
        p = userPath(path);
      } catch (e) {
        return Promise.reject(e);
      }
      return put(p, typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data), true);
    },
    delete(path) {
      let p: string;
      try {
        p = userPath(path);
      } catch (e) {
        return Promise.reject(e);
      }
      return remove(p, true);
    },
    area(name) {
      let a = areas.get(name);
      if (!a) {
        a = createSystemArea(name, {
          list: (prefix) => under(prefix),
          read: (p) => files.get(p)?.data,
          write: async (p, data) => {
            const { created: _created, ...written } = await put(p, data, false);
            return written;
          },
          delete: (p) => remove(p, false),
        });
        areas.set(name, a);
      }
      return a;
    },
    totalBytes: () => total,
    reload,
  };
}

/** Tool handlers over a workspace: `read_file`, `write_file`, `list_files`, `delete_file`. */
export function workspaceTools(ws: WorkspaceApi) {
  return {
    read_file: async (args: Record<string, unknown>): Promise<ReadFileValue> => {
      const path = normalizePath(args.path);
      const data = ws.read(path);
      const meta = ws.stat(path)!;
      if (args.encoding === 'base64') return { ...meta, encoding: 'base64', content: toBase64(data) };
      return { ...meta, encoding: 'utf8', content: ws.readText(path) };
    },
    write_file: async (args: Record<string, unknown>) => {
      const content = String(args.content);
      const data = args.encoding === 'base64' ? fromBase64(content) : content;
      return ws.write(String(args.path), data);
    },
    list_files: async (args: Record<string, unknown>): Promise<ListFilesValue> => {
      const files = ws.list(typeof args.prefix === 'string' ? args.prefix : undefined);
      return { files, count: files.length, totalBytes: files.reduce((n, f) => n + f.size, 0) };
    },
    delete_file: async (args: Record<string, unknown>) => {
      const path = normalizePath(args.path);
      if (!(await ws.delete(path))) {
        throw new ArmatureError('FILE_NOT_FOUND', `[workspace] no file ${JSON.stringify(path)}`, { hint: 'List the files with list_files.' });
      }
      return { path, deleted: true as const };
    },
  };
}
