// The package as a user installs it: `npm pack` of this checkout (which builds dist/ through
// `prepack`), and the tarball installed into an empty project. Dependencies come from the npm cache
// the checkout's own install filled (`--prefer-offline`), else from the registry.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root. */
export const checkoutRoot = fileURLToPath(new URL('../../', import.meta.url));

/** An empty project with the packed tarball installed. */
export interface PackedInstall {
  /** The project folder. */
  project: string;
  /** `node_modules/armature` in it. */
  installed: string;
  /** `node_modules/.bin/armature` in it. */
  bin: string;
  /** The tarball's file name, in `project`. */
  tarball: string;
  /** Paths inside the tarball, as `npm pack` listed them. */
  files: string[];
  /** Milliseconds spent in `npm pack` (build included) and in `npm install`. */
  timings: { packMs: number; installMs: number };
}

/** Runs a command to completion; output as text. */
export function runSync(cmd: string, args: readonly string[], options: SpawnSyncOptions = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300_000, ...options });
  return { code: r.status, out: String(r.stdout), err: String(r.stderr) };
}

/**
 * Packs the checkout and installs the tarball into `project` (an empty folder), together with
 * `extra` packages (exact specs such as `@types/node@20.19.43`). Throws with npm's output on failure.
 */
export function packAndInstall(project: string, extra: readonly string[] = []): PackedInstall {
  const t0 = performance.now();
  const pack = runSync('npm', ['pack', '--json', '--pack-destination', project], { cwd: checkoutRoot });
  if (pack.code !== 0) throw new Error(`npm pack failed (exit ${pack.code}):\n${pack.err}`);
  const [packed] = JSON.parse(pack.out) as { name: string; filename: string; files: { path: string }[] }[];
  const t1 = performance.now();
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const install = runSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${packed!.filename}`, ...extra], { cwd: project });
  if (install.code !== 0) throw new Error(`npm install of ${packed!.filename} failed (exit ${install.code}):\n${install.err}`);
  const installed = join(project, 'node_modules', packed!.name);
  return {
    project,
    installed,
    bin: join(project, 'node_modules', '.bin', 'armature'),
    tarball: packed!.filename,
    files: packed!.files.map((f) => f.path),
    timings: { packMs: t1 - t0, installMs: performance.now() - t1 },
  };
}

/** The exact version the checkout pins for a dev dependency, e.g. for `@types/node`. */
export function devDependencyVersion(name: string): string {
  const pkg = JSON.parse(readFileSync(join(checkoutRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const version = pkg.devDependencies[name];
  if (!version) throw new Error(`${name} is not a devDependency of the checkout`);
  return version;
}
