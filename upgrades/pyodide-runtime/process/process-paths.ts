/**
 * The folders a confined Python child may read and write (`process` isolation), as the
 * permission model needs them: real paths, and grants for folders that do not exist yet.
 * Node modules are imported lazily: browsers load the runtime's files (and never call these).
 */
import type { PythonChildOptions } from './process-link.ts';
import { childSnapshotFolder } from './process-snapshots.ts';
import { packageCacheDirFor, type ResolvedOptions } from '../host/runtime-options.ts';

/** How a confined child for `o` is started, and the two folders its start message names. */
export interface ChildLaunch {
  launch: PythonChildOptions;
  /** Its own package download folder (the only one it may write). */
  packageDir?: string;
  /** The folder it reads start-up snapshots from itself. */
  snapshotFolder?: string;
}

/**
 * What a confined child for the runtime options `o` is started with: its memory cap, the largest
 * message it may send, and the folders it may read and write. The same options give the same
 * launch, so a child started early for them (`startPythonChildEarly`) is the one taken.
 */
export async function childLaunch(o: ResolvedOptions): Promise<ChildLaunch> {
  const indexDir = o.indexURL ? await localDir(o.indexURL) : undefined;
  // A package index on disk (a mirror) is read by the child: read access to that folder only.
  const mirror = await localDir(o.packageIndexURL);
  // Packages downloaded by the child go to a folder of its own, the only one it may write:
  // never the one an unconfined runtime installs from.
  const packageDir = await childPackageDir(o);
  // The child reads its start-up snapshot from the cache folder itself (it writes through the host).
  const snapshotFolder = childSnapshotFolder(o);
  const launch: PythonChildOptions = {
    memoryMb: o.processMemoryMb,
    maxFrameBytes: Math.max(2 * o.maxResultBytes + 4 * o.maxChars, o.maxSyncBytes, 2 * o.maxToolArgBytes, 48 * 1024 * 1024) + 1024 * 1024,
    indexDir,
    read: [...(mirror ? [mirror] : []), ...(snapshotFolder ? [snapshotFolder] : [])],
    write: packageDir ? [insideGrant(packageDir)] : [],
  };
  return { launch, packageDir, snapshotFolder };
}

/**
 * The confined child's package download folder: the host's own (`packageCacheDirFor`) with
 * `-confined` appended, its existing part resolved through symbolic links (the permission model
 * compares the paths Pyodide uses). Not created here: Pyodide creates it at the first download.
 * Undefined when packages are not downloaded (a local index is read in place).
 */
async function childPackageDir(o: ResolvedOptions): Promise<string | undefined> {
  const hostDir = await packageCacheDirFor(o);
  if (!hostDir) return undefined;
  const { realpath } = await import('node:fs/promises');
  const { basename, dirname, join, resolve } = await import('node:path');
  let existing = resolve(`${hostDir.replace(/[\\/]+$/, '')}-confined`);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...rest);
    } catch {
      if (dirname(existing) === existing) return resolve(`${hostDir}-confined`);
      rest.unshift(basename(existing));
      existing = dirname(existing);
    }
  }
}

/**
 * The permission grant for the child's package folder: everything inside it, and the folder
 * itself, whether or not it exists yet (Node grants a missing folder only with the wildcard).
 */
function insideGrant(dir: string): string {
  return `${dir}/*`;
}

/** The local folder of a file path or `file:` URL of Pyodide's files, for the child's read permission. */
async function localDir(indexURL: string): Promise<string | undefined> {
  if (/^https?:/.test(indexURL)) return undefined;
  const { fileURLToPath } = await import('node:url');
  const path = indexURL.startsWith('file:') ? fileURLToPath(indexURL) : indexURL;
  return path.replace(/[\\/]+$/, '');
}
