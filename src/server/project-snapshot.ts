import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

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

/** Reads the manifests, blueprints and recorded examples under `root` into `{ files: { path: text } }`. */
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
  await readRecordedExamples(root, files);
  return { files };
}
