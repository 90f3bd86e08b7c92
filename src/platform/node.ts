import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ArmatureError } from '../kernel/errors.ts';
import { openDirectoryStore } from './directory-store.ts';
import { openDirectoryCache } from './node-cache.ts';
import { openSharedDirectory } from './node-shared-directory.ts';
import { processDirectory } from '../kernel/journal/process-liveness.ts';
import { packageRoot } from './package-layout.ts';
import { layeredProjectFiles, type Platform, type ProjectFiles } from './platform.ts';

/** The project root (the folder holding `modules/` and `blueprints/`), as a path. */
export const projectRoot = fileURLToPath(packageRoot);

/** Options of {@link createNodePlatform}. */
export interface NodePlatformOptions {
  /** Where persistent data lives. Default: `.armature` in the current directory. */
  dataDir?: string;
  /**
   * A folder of your own read beside the package's: its `modules/upgrades.json`,
   * `modules/tools-read.json`, `modules/tools-write.json`, `modules/personas/*.json`, `blueprints/*.md`
   * and the `upgrades/<folder>/` they name (`armature init` writes one). Its ids must not be the
   * package's. Default: none, the package's files alone.
   */
  root?: string;
}

/** The Node platform: project files from disk, stores and shared stores as folders under `dataDir`, caches under `dataDir/cache`, the processes on `dataDir` from their journals' folders. */
export function createNodePlatform(options: NodePlatformOptions = {}): Platform {
  const dataDir = resolve(options.dataDir ?? '.armature');
  return {
    kind: 'node',
    dataDir,
    project: options.root === undefined ? nodeProjectFiles(projectRoot) : nodeProjectLayers(resolve(options.root)),
    openStore: async (name) => openDirectoryStore(join(dataDir, name)),
    openShared: (name) => openSharedDirectory(join(dataDir, name)),
    openCache: (name) => openDirectoryCache(join(dataDir, 'cache', name)),
    processes: processDirectory(dataDir),
  };
}

/** The package's files and, beside them, those of the folder `root`. */
export function nodeProjectLayers(root: string): ProjectFiles {
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new ArmatureError('ROOT_NOT_FOUND', `[project] the root ${JSON.stringify(root)} is not a folder`, {
      hint: 'Pass the folder that holds your modules/ and blueprints/ (armature init DIR writes one).',
    });
  }
  if (resolve(root) === resolve(projectRoot)) return nodeProjectFiles(projectRoot);
  return layeredProjectFiles([
    { kind: 'package', location: projectRoot, files: nodeProjectFiles(projectRoot) },
    { kind: 'root', location: root, files: nodeProjectFiles(root), moduleBase: pathToFileURL(join(root, '/')).href },
  ]);
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
