/**
 * The folders a confined Python child may read and write (`process` isolation), as the
 * permission model needs them: real paths, and grants for folders that do not exist yet.
 * Node modules are imported lazily: browsers load the runtime's files (and never call these).
 */
import { packageCacheDirFor, type ResolvedOptions } from './runtime-options.ts';

/**
 * The confined child's package download folder: the host's own (`packageCacheDirFor`) with
 * `-confined` appended, its existing part resolved through symbolic links (the permission model
 * compares the paths Pyodide uses). Not created here: Pyodide creates it at the first download.
 * Undefined when packages are not downloaded (a local index is read in place).
 */
export async function childPackageDir(o: ResolvedOptions): Promise<string | undefined> {
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
export function insideGrant(dir: string): string {
  return `${dir}/*`;
}

/** The local folder of a file path or `file:` URL of Pyodide's files, for the child's read permission. */
export async function localDir(indexURL: string): Promise<string | undefined> {
  if (/^https?:/.test(indexURL)) return undefined;
  const { fileURLToPath } = await import('node:url');
  const path = indexURL.startsWith('file:') ? fileURLToPath(indexURL) : indexURL;
  return path.replace(/[\\/]+$/, '');
}
