import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, utimes } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from './package-layout.ts';
import type { FileStore, Platform, ProjectFiles, StoredFile } from './platform.ts';

/** The project root (the folder holding `modules/` and `blueprints/`), as a path. */
export const projectRoot = fileURLToPath(packageRoot);

/** Options of {@link createNodePlatform}. */
export interface NodePlatformOptions {
  /** Where persistent data lives. Default: `.armature` in the current directory. */
  dataDir?: string;
  /** Where `modules/` and `blueprints/` are read from. Default: the installed package's root. */
  root?: string;
}

/** The Node platform: project files from disk, stores as directories under `dataDir`. */
export function createNodePlatform(options: NodePlatformOptions = {}): Platform {
  const dataDir = resolve(options.dataDir ?? '.armature');
  const root = resolve(options.root ?? projectRoot);
  return {
    kind: 'node',
    project: nodeProjectFiles(root),
    openStore: async (name) => openDirectoryStore(join(dataDir, name)),
  };
}

/** Project files read from `root` on disk. */
export function nodeProjectFiles(root: string): ProjectFiles {
  return {
    async list(dir, ext) {
      let names: string[];
      try {
        names = await readdir(join(root, dir));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
      return names.filter((n) => n.endsWith(ext)).sort().map((n) => `${dir}/${n}`);
    },
    async read(path) {
      try {
        return await readFile(join(root, path), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`[project] ${path} does not exist under ${root}`);
        throw e;
      }
    },
  };
}

/**
 * A {@link FileStore} backed by a directory: one host file per stored file.
 * Writes go to a temporary file that is fsynced and renamed over the target, and the
 * folder is fsynced, so a crash after `put` resolves never leaves a torn or missing file.
 */
export async function openDirectoryStore(dir: string): Promise<FileStore> {
  await mkdir(dir, { recursive: true });
  const target = (path: string) => {
    const full = resolve(dir, ...path.split('/'));
    // Paths are normalized by the workspace already; this guards the host file system regardless.
    if (!full.startsWith(dir + sep)) throw new Error(`[store] refusing path outside the store: ${JSON.stringify(path)}`);
    return full;
  };
  return {
    async load() {
      const out: StoredFile[] = [];
      const walk = async (folder: string): Promise<void> => {
        for (const entry of await readdir(folder, { withFileTypes: true })) {
          const full = join(folder, entry.name);
          if (entry.isDirectory()) await walk(full);
          else if (entry.isFile() && !entry.name.includes('.armature-tmp-')) {
            const [data, info] = await Promise.all([readFile(full), stat(full)]);
            out.push({ path: relative(dir, full).split(sep).join('/'), data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), mtime: Math.round(info.mtimeMs) });
          }
        }
      };
      await walk(dir);
      return out.sort((a, b) => (a.path < b.path ? -1 : 1));
    },
    async put(file) {
      const full = target(file.path);
      await mkdir(dirname(full), { recursive: true });
      const tmp = `${full}.armature-tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(file.data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await utimes(tmp, new Date(file.mtime), new Date(file.mtime));
      await rename(tmp, full);
      await syncDir(dirname(full));
    },
    async delete(path) {
      const full = target(path);
      await rm(full, { force: true });
      await syncDir(dirname(full));
      await pruneEmptyDirs(dirname(full), dir);
    },
    async close() {},
  };
}

async function syncDir(path: string): Promise<void> {
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

async function pruneEmptyDirs(from: string, stopAt: string): Promise<void> {
  let current = from;
  while (current.startsWith(stopAt + sep)) {
    try {
      if ((await readdir(current)).length > 0) return;
      await rmdir(current);
    } catch {
      return;
    }
    current = dirname(current);
  }
}
