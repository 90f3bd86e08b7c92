/**
 * `armature init [DIR]`: writes a starter root (see `starter-files.ts`) into DIR, creating it if
 * needed. It never overwrites: if any file it would write is there, it writes nothing and names them.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { makeFolders } from '../platform/node-files.ts';
import { packageRoot } from '../platform/package-layout.ts';
import type { CliIo } from './cli-io.ts';
import { starterFiles, starterPackageJson } from './starter-files.ts';
import { UsageError } from './usage-error.ts';

/** Writes the starter into `args[0]` (default: the current folder); resolves to the exit code. */
export async function runInitCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.length > 1) throw new UsageError(`init takes one folder, got ${args.length}: armature init [DIR]`);
  const dir = resolve(args[0] ?? '.');
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`init writes into a folder, and ${dir} is a file`);
  const name = basename(dir);
  const files = starterFiles(name);
  const taken = Object.keys(files).filter((f) => existsSync(join(dir, f))).sort();
  if (taken.length) {
    io.err(`armature: init would overwrite ${taken.join(', ')} in ${dir}: nothing was written. Pick an empty folder (armature init NEW-DIR) or move those files.`);
    return 1;
  }
  const withPackage = !existsSync(join(dir, 'package.json'));
  if (withPackage) files['package.json'] = starterPackageJson(name, armatureVersion());
  for (const [path, text] of Object.entries(files)) {
    await makeFolders(dirname(join(dir, path)));
    await writeFile(join(dir, path), text, { flag: 'wx' });
  }
  const shown = relative(process.cwd(), dir) || '.';
  io.out(`Wrote a starter root in ${dir}:`);
  for (const path of Object.keys(files).sort()) io.out(`  ${path}`);
  io.out('');
  io.out('Next:');
  io.out(`  cd ${shown}${withPackage ? ' && npm install' : ''}`);
  io.out('  node --test                                        # its test: boots the persona, calls the tools');
  io.out("  npx armature --root . call tally_add '{\"name\": \"apples\"}' --persona tally");
  io.out('  npx armature --root . start --persona tally       # the dashboard, with the Tally card');
  return 0;
}

function armatureVersion(): string {
  return (JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8')) as { version: string }).version;
}
