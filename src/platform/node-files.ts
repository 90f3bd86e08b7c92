import { mkdir, open, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Marks the temporary files of {@link writeFileAtomic}; readers skip names containing it. */
export const TEMP_MARK = '.armature-tmp-';

const MARKED = /\.armature-tmp-(\d+)-[0-9a-z]+$/;

/** Whether process `pid` is running on this machine (temporary names carry their writer's pid). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `name` is a temporary file of {@link writeFileAtomic} whose writer has died (it will never be renamed). */
export function orphanedTempName(name: string): boolean {
  const pid = MARKED.exec(name)?.[1];
  return pid !== undefined && !processAlive(Number(pid));
}

/**
 * Creates folder `dir` and any missing parents, as `mkdir -p` does. Not Node's own recursive
 * `mkdir`: on Node 20 it never settles when a parent exists but refuses the folder with ENOENT
 * (`/proc/x/y`), so a bad data folder would hang the process instead of failing. Each missing level
 * is made on its own, from the deepest existing one down, and the first refusal is thrown.
 */
export async function makeFolders(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = resolve(dir); ; ) {
    try {
      await stat(at);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const folder of missing.reverse()) {
    await mkdir(folder).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'EEXIST') throw e;
    });
  }
}

/**
 * Writes `data` to `path` so that a crash never leaves a torn or missing file: a temporary file
 * beside it is written and fsynced, renamed over `path`, and the folder is fsynced. `mtime`
 * (ms since the epoch) sets the file's modification time.
 */
export async function writeFileAtomic(path: string, data: Uint8Array, mtime?: number): Promise<void> {
  await makeFolders(dirname(path));
  const tmp = `${path}${TEMP_MARK}${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mtime !== undefined) await utimes(tmp, new Date(mtime), new Date(mtime));
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  await syncDir(dirname(path));
}

/** Fsyncs a folder, so a rename or removal in it is durable. */
export async function syncDir(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic there.
  }
}
