/**
 * Where recordings come from: a file of one's own (Node: a path from the current folder) or the
 * examples Armature ships (`examples/<name>/recording.jsonl`, listed in `examples/recorded.json`,
 * read through the project files: the disk in Node, the server's project snapshot in browsers).
 */
import { ArmatureError } from '../../../src/kernel/errors.ts';
import type { ProjectFiles } from '../../../src/platform/platform.ts';
import type { RecordedExample } from '../../../src/contracts/agent-contract.ts';
import { parseRecording, recordingPaths, type Recording } from '../../../src/contracts/recording-format.ts';

/** The list of the shipped examples. */
export const EXAMPLES_INDEX = 'examples/recorded.json';

/** Reads a local file's text, or `undefined` when there is none (Node only). */
export type LocalFiles = (path: string) => string | undefined;

/** The local files of this process, in Node; nothing in browsers. */
export function localFiles(): LocalFiles | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown; cwd?: () => string } }).process;
  // The two calls needed, typed here: this module is also part of the page, which has no Node types.
  const fs = proc?.getBuiltinModule?.('node:fs') as { statSync(path: string): { isFile(): boolean }; readFileSync(path: string, encoding: 'utf8'): string } | undefined;
  if (!fs) return undefined;
  return (path) => {
    try {
      return fs.statSync(path).isFile() ? fs.readFileSync(path, 'utf8') : undefined;
    } catch {
      return undefined;
    }
  };
}

/** The names of the shipped examples, from the index (none when it is absent). */
async function exampleNames(project: ProjectFiles): Promise<string[]> {
  let text: string;
  try {
    text = await project.read(EXAMPLES_INDEX);
  } catch {
    return [];
  }
  const names = (JSON.parse(text) as { examples?: unknown }).examples;
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}

/** Loads recordings by name: a local file first (Node), then the project's (the shipped examples). */
export function createRecordingLoader(project: ProjectFiles, local: LocalFiles | undefined): (name: string) => Promise<Recording> {
  return async (name) => {
    for (const path of recordingPaths(name)) {
      const text = local?.(path);
      if (text !== undefined) return parseRecording(text, path);
    }
    for (const path of recordingPaths(name)) {
      let text: string | undefined;
      try {
        text = await project.read(path);
      } catch {
        text = undefined;
      }
      if (text !== undefined) return parseRecording(text, path);
    }
    const examples = (await exampleNames(project)).map((n) => `examples/${n}`);
    throw new ArmatureError('RECORDING_NOT_FOUND', `[agent] no recording ${JSON.stringify(name)}${local ? ' (looked for ' + recordingPaths(name).join(' and ') + ' here and among the examples)' : ''}`, {
      hint: examples.length ? `Replay one of the examples: ${examples.join(', ')}; or record a run with armature agent --record FILE.` : 'Record a run with armature agent --record FILE.',
    });
  };
}

/** The shipped examples, each with its title and goals, from its recording. */
export async function listExamples(project: ProjectFiles, load: (name: string) => Promise<Recording>): Promise<RecordedExample[]> {
  const out: RecordedExample[] = [];
  for (const n of await exampleNames(project)) {
    const name = `examples/${n}`;
    const r = await load(name);
    out.push({ name, title: r.header.title ?? n, ...(r.header.description ? { description: r.header.description } : {}), ...(r.header.label ? { label: r.header.label } : {}), goals: r.turns.map((t) => t.goal), toolMode: r.header.toolMode });
  }
  return out;
}
