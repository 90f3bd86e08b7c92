import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDirectoryStore } from './directory-store.ts';
import { openDirectoryCache } from './node-cache.ts';
import { openSharedDirectory } from './node-shared-directory.ts';
import { packageRoot } from './package-layout.ts';
import type { Platform, ProjectFiles } from './platform.ts';

/** The project root (the folder holding `modules/` and `blueprints/`), as a path. */
export const projectRoot = fileURLToPath(packageRoot);

/** Options of {@link createNodePlatform}. */
export interface NodePlatformOptions {
  /** Where persistent data lives. Default: `.armature` in the current directory. */
  dataDir?: string;
  /** Where `modules/` and `blueprints/` are read from. Default: the installed package's root. */
  root?: string;
}

/** The Node platform: project files from disk, stores and shared stores as folders under `dataDir`, caches under `dataDir/cache`. */
export function createNodePlatform(options: NodePlatformOptions = {}): Platform {
  const dataDir = resolve(options.dataDir ?? '.armature');
  const root = resolve(options.root ?? projectRoot);
  return {
    kind: 'node',
    project: nodeProjectFiles(root),
    openStore: async (name) => openDirectoryStore(join(dataDir, name)),
    openShared: (name) => openSharedDirectory(join(dataDir, name)),
    openCache: (name) => openDirectoryCache(join(dataDir, 'cache', name)),
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

export { openDirectoryStore, UnsafeStorePathError } from './directory-store.ts';
