import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { projectRoot } from '../platform/node.ts';
import type { ProjectSnapshot } from '../platform/browser/browser.ts';

/** The folders the browser platform needs, and which files of each. */
const SNAPSHOT_DIRS: readonly { dir: string; ext: string }[] = [
  { dir: 'modules', ext: '.json' },
  { dir: 'modules/personas', ext: '.json' },
  { dir: 'blueprints', ext: '.md' },
];

/**
 * The recorded examples (`examples/recorded.json` and the recording of each example it lists),
 * which the agent panel replays; none when the project has none.
 */
async function readRecordedExamples(root: string, files: Record<string, string>): Promise<void> {
  let index: string;
  try {
    index = await readFile(join(root, 'examples', 'recorded.json'), 'utf8');
  } catch {
    return;
  }
  files['examples/recorded.json'] = index;
  for (const name of (JSON.parse(index) as { examples?: string[] }).examples ?? []) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) continue;
    try {
      files[`examples/${name}/recording.jsonl`] = await readFile(join(root, 'examples', name, 'recording.jsonl'), 'utf8');
    } catch {
      // A listed example without its recording: the panel says so when it is chosen.
    }
  }
}

/** The manifests and blueprints under `folder`, as `{ path: text }`. */
async function readFolder(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const { dir, ext } of SNAPSHOT_DIRS) {
    let names: string[] = [];
    try {
      names = await readdir(join(folder, dir));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith(ext)).sort()) {
      files[`${dir}/${name}`] = await readFile(join(folder, dir, name), 'utf8');
    }
  }
  return files;
}

/**
 * The project snapshot a browser boots from: the package's manifests, blueprints and recorded examples in `files`
 * and, given a user's `root` (a folder of its own beside the package's, as `boot({ root })` takes
 * in Node), that folder's in `root.files`. The package's root passed as `root` adds nothing.
 */
export async function readProjectSnapshot(root?: string): Promise<ProjectSnapshot> {
  const files = await readFolder(projectRoot);
  await readRecordedExamples(projectRoot, files);
  if (root === undefined || resolve(root) === resolve(projectRoot)) return { files };
  return { files, root: { files: await readFolder(root) } };
}
