import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The folders the browser platform needs, and which files of each. */
const SNAPSHOT_DIRS: readonly { dir: string; ext: string }[] = [
  { dir: 'modules', ext: '.json' },
  { dir: 'modules/personas', ext: '.json' },
  { dir: 'blueprints', ext: '.md' },
];

/** Reads the manifests and blueprints under `root` into `{ files: { path: text } }`. */
export async function readProjectSnapshot(root: string): Promise<{ files: Record<string, string> }> {
  const files: Record<string, string> = {};
  for (const { dir, ext } of SNAPSHOT_DIRS) {
    let names: string[] = [];
    try {
      names = await readdir(join(root, dir));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith(ext)).sort()) {
      files[`${dir}/${name}`] = await readFile(join(root, dir, name), 'utf8');
    }
  }
  return { files };
}
