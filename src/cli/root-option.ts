/**
 * `--root DIR` (or `ARMATURE_ROOT`): a folder of the user's own read beside the package's
 * (`boot({ root })`). Checked once for every command, so a mistyped folder is bad usage, said at once.
 */
import { statSync } from 'node:fs';
import { quote } from '../kernel/bounded.ts';
import { UsageError } from './usage-error.ts';

/** The root the command line asks for (`--root` over `ARMATURE_ROOT`), or undefined; throws a {@link UsageError} for one that is not a folder. */
export function rootOption(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const root = flag ?? (env.ARMATURE_ROOT || undefined);
  if (root === undefined) return undefined;
  let folder = false;
  try {
    folder = statSync(root).isDirectory();
  } catch {
    // Missing or unreadable: not a folder we can use.
  }
  if (!folder) throw new UsageError(`${flag === undefined ? 'ARMATURE_ROOT' : '--root'} ${quote(root)} is not a folder: give the folder that holds your modules/ (armature init DIR writes one)`);
  return root;
}
