/**
 * Node: a {@link FileStore} backed by a directory, one host file per stored file. It never follows
 * a symbolic link: files are opened with `O_NOFOLLOW`, links met while loading are skipped, and
 * before every write or delete each folder between the store's root and the file is checked to be
 * a real folder (not a link) whose real path stays inside the root. A link planted in the data
 * folder, to a file or a folder elsewhere, leads no read or write out of it.
 *
 * Writes go through a temporary file in the store's own folder, {@link TEMP_FOLDER}: inside the
 * folder the workspace keeps for the system (`.armature/`), under a name no system area can take,
 * so no name a user or an area chooses is ever mistaken for one. Temporary files of processes that
 * died mid-write (their names start with the writer's pid) are removed at open, as are those of
 * the older layout (`<name>.armature-tmp-<pid>-<random>` beside the file) the first time.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ArmatureError } from '../kernel/errors.ts';
import { makeFolders, orphanedTempName, processAlive, syncDir } from './node-files.ts';
import type { FileStore, StoredFile, StoredFileInfo } from './platform.ts';

/** `O_NOFOLLOW` where the platform has it (not on Windows, where links need privileges to make). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The store's own folder for temporary files, relative to its root (never loaded, never a stored path). */
export const TEMP_FOLDER = '.armature/.tmp';

/** The store refused a path that goes through a symbolic link or leaves the store. */
export class UnsafeStorePathError extends ArmatureError {
  constructor(root: string, path: string, reason: string) {
    super('UNSAFE_STORE_PATH', `[store] refusing ${JSON.stringify(path.slice(0, 200))} in ${root}: ${reason}`, {
      details: { root, path: path.slice(0, 200) },
      hint: 'Remove the symbolic link from the data folder; the store never follows links.',
    });
  }
}

/**
 * Opens (creating if needed) the store at `dir`. Writes go to a temporary file that is fsynced and
 * renamed over the target, and the folder is fsynced, so a crash after `put` resolves never leaves
 * a torn or missing file. `dir` itself must be a real folder: a symbolic link there is refused too.
 */
export async function openDirectoryStore(dir: string): Promise<FileStore> {
  await makeFolders(dir);
  const top = await lstat(dir);
  if (top.isSymbolicLink() || !top.isDirectory()) throw new UnsafeStorePathError(dir, '.', 'the store folder is a symbolic link or not a folder');
  const root = await realpath(dir);
  const tempDir = join(root, ...TEMP_FOLDER.split('/'));

  const target = (path: string) => {
    const full = resolve(root, ...path.split('/'));
    // Paths are normalized by the workspace already; this guards the host file system regardless.
    if (!full.startsWith(root + sep)) throw new UnsafeStorePathError(root, path, 'it leaves the store');
    if (full === tempDir || full.startsWith(tempDir + sep)) throw new UnsafeStorePathError(root, path, `${TEMP_FOLDER}/ is reserved for the store's temporary files`);
    return full;
  };

  /**
   * Checks every folder from the root down to `full`'s parent: each must be a real folder, not a
   * link. Missing ones are created when `create`, else the answer is false (nothing to reach).
   */
  const checkFolders = async (full: string, path: string, create: boolean): Promise<boolean> => {
    const rel = relative(root, dirname(full));
    let current = root;
    for (const segment of rel ? rel.split(sep) : []) {
      current = join(current, segment);
      let info: Stats | undefined;
      try {
        info = await lstat(current);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        if (!create) return false;
        await mkdir(current).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        info = await lstat(current);
      }
      if (info.isSymbolicLink()) throw new UnsafeStorePathError(root, path, `${relative(root, current)} is a symbolic link`);
      if (!info.isDirectory()) throw new UnsafeStorePathError(root, path, `${relative(root, current)} is not a folder`);
    }
    // Belt and braces: whatever the checks above missed (a race), the real path must be inside.
    const real = await realpath(dirname(full));
    if (real !== root && !real.startsWith(root + sep)) throw new UnsafeStorePathError(root, path, 'its folder resolves outside the store');
    return true;
  };

  // The first open by this layout also sweeps the older one's leftovers (beside the files).
  const legacy = !(await lstat(tempDir).catch(() => undefined));
  await checkFolders(join(tempDir, 'x'), TEMP_FOLDER, true);
  await removeOrphans(root, tempDir, legacy);

  return {
    folder: root,
    async load() {
      const out: StoredFile[] = [];
      await eachFile(root, tempDir, async (full, path) => {
        const file = await readNoFollow(full);
        if (file) out.push({ path, ...file });
      });
      return out.sort((a, b) => (a.path < b.path ? -1 : 1));
    },
    async scan() {
      const out: StoredFileInfo[] = [];
      await eachFile(root, tempDir, async (full, path) => {
        // Gone since readdir (another process deleted it): not listed.
        const info = await lstat(full).catch(() => undefined);
        if (info?.isFile()) out.push({ path, size: info.size, mtime: Math.round(info.mtimeMs) });
      });
      return out.sort((a, b) => (a.path < b.path ? -1 : 1));
    },
    async get(path) {
      const full = target(path);
      // The folders on the way are checked like a write's: a planted link leads no read out.
      if (!(await checkFolders(full, path, false))) return undefined;
      const file = await readNoFollow(full);
      return file && { path, ...file };
    },
    async put(file) {
      const full = target(file.path);
      await checkFolders(full, file.path, true);
      const tmp = join(tempDir, `${process.pid}-${Math.random().toString(36).slice(2)}`);
      // The temporary folder is checked like any other: a link there would lead the write out.
      await checkFolders(tmp, TEMP_FOLDER, true);
      try {
        // O_EXCL | O_NOFOLLOW: a fresh file of our own, never an existing one or a link's target.
        const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644);
        try {
          await handle.writeFile(file.data);
          await handle.utimes(new Date(file.mtime), new Date(file.mtime));
          await handle.sync();
        } finally {
          await handle.close();
        }
        // rename replaces a link at `full` itself; it never writes through it.
        await rename(tmp, full);
      } catch (e) {
        await rm(tmp, { force: true }).catch(() => undefined);
        if ((e as NodeJS.ErrnoException).code === 'EISDIR' || (e as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (e as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new UnsafeStorePathError(root, file.path, `${file.path} is a folder: a file cannot replace it`);
        }
        throw e;
      }
      await syncDir(dirname(full));
    },
    async delete(path) {
      const full = target(path);
      if (!(await checkFolders(full, path, false))) return;
      // rm of a link removes the link, not what it points to.
      await rm(full, { force: true });
      await syncDir(dirname(full));
      await pruneEmptyDirs(dirname(full), root);
    },
    async close() {},
  };
}

/**
 * Removes temporary files whose writer is gone: in the store's own folder (`<pid>-<random>`), and
 * when `legacy`, the older layout's marked names anywhere in the store.
 */
/**
 * Calls `visit` with each regular file below `root` (its full path and its store path), leaving out
 * the store's temporary folder `skip`. Dirent types come from the entry itself: a link is neither a
 * folder nor a file here, so none is followed.
 */
async function eachFile(root: string, skip: string, visit: (full: string, path: string) => Promise<void>): Promise<void> {
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (full !== skip) await walk(full);
      } else if (entry.isFile()) await visit(full, relative(root, full).split(sep).join('/'));
    }
  };
  await walk(root);
}

async function removeOrphans(root: string, tempDir: string, legacy: boolean): Promise<void> {
  for (const name of await readdir(tempDir)) {
    const pid = /^(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) await rm(join(tempDir, name), { force: true, recursive: true });
  }
  if (!legacy) return;
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (full !== tempDir) await walk(full);
      } else if (entry.isFile() && orphanedTempName(entry.name)) await rm(full, { force: true });
    }
  };
  await walk(root);
}

/** Contents and mtime of the regular file at `full`, or undefined if it is (now) a link or not a file. */
async function readNoFollow(full: string): Promise<{ data: Uint8Array; mtime: number } | undefined> {
  let handle;
  try {
    handle = await open(full, constants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP' || (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const data = await handle.readFile();
    return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), mtime: Math.round(info.mtimeMs) };
  } finally {
    await handle.close();
  }
}

async function pruneEmptyDirs(from: string, stopAt: string): Promise<void> {
  let current = from;
  while (current.startsWith(stopAt + sep)) {
    try {
      if ((await lstat(current)).isSymbolicLink() || (await readdir(current)).length > 0) return;
      await rmdir(current);
    } catch {
      return;
    }
    current = dirname(current);
  }
}
