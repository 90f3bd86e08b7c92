// The package as a user installs it (npm pack + install of the tarball into an empty project):
// - `armature boot` and `armature tools` wall time, the built JavaScript vs the sources through tsx;
// - process start to the first result of `armature run -c 'print(1)'` from the installed package,
//   beside a bare script that only does `loadPyodide` + `runPython('print(1)')` with the same
//   installed pyodide; cold (`--no-snapshot`) vs from the persisted snapshot once the CLI has that flag.
// Median of 5 each, the alternatives interleaved, after one warm-up run of each.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutRoot, packAndInstall, runSync } from '../test/helpers/packed-install.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { percentile, type BenchRow } from './types.ts';

const suite = 'package';
const SAMPLES = 5;

interface Variant {
  name: string;
  cmd: string;
  args: string[];
  /** Time until stdout matches this; else until the process exits. */
  until?: RegExp;
}

/** ms from spawning `v` until its first result (or its exit); rejects if it fails. */
function time(v: Variant, cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(v.cmd, v.args, { cwd, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    let first: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (first === undefined && v.until?.test(out)) first = performance.now() - t0;
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const total = performance.now() - t0;
      if (code !== 0) reject(new Error(`${v.name}: exit ${code}\n${out}${err}`));
      else if (v.until && first === undefined) reject(new Error(`${v.name}: stdout never matched ${v.until}: ${JSON.stringify(out)}`));
      else resolve(first ?? total);
    });
  });
}

/** One warm-up run of each variant, then `SAMPLES` rounds running each once, in turn. */
async function interleaved(variants: readonly Variant[], cwd: string, env: NodeJS.ProcessEnv): Promise<Map<string, number[]>> {
  const samples = new Map(variants.map((v) => [v.name, [] as number[]]));
  for (const v of variants) await time(v, cwd, env);
  for (let i = 0; i < SAMPLES; i++) for (const v of variants) samples.get(v.name)!.push(await time(v, cwd, env));
  return samples;
}

const median = (xs: readonly number[]) => percentile(xs, 50);
const range = (xs: readonly number[]): [number, number] => [Math.min(...xs), Math.max(...xs)];

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const pkg = packAndInstall(tempDir('bench-package'));
  rows.push({ suite, name: 'npm pack (npm run build included)', value: pkg.timings.packMs, unit: 'ms' });
  rows.push({ suite, name: 'npm install of the tarball (--prefer-offline)', value: pkg.timings.installMs, unit: 'ms' });

  const cwd = tempDir('bench-package-cwd');
  // A snapshot kept in the user's cache folder must not come from, or land in, the real one.
  const env = { XDG_CACHE_HOME: tempDir('bench-package-cache') };
  const data = join(cwd, 'data');
  const sourcesBin = join(checkoutRoot, 'bin/armature.js');

  for (const command of ['boot', 'tools']) {
    const built = `armature ${command} wall time, built package (installed)`;
    const sources = `armature ${command} wall time, sources through tsx (checkout, tsx cache warm)`;
    const samples = await interleaved(
      [
        { name: built, cmd: pkg.bin, args: [command, '--data', data] },
        { name: sources, cmd: process.execPath, args: [sourcesBin, command, '--data', data] },
      ],
      cwd,
      env,
    );
    for (const name of [built, sources]) rows.push({ suite, name: `${name}, median of ${SAMPLES}`, value: median(samples.get(name)!), unit: 'ms', range: range(samples.get(name)!) });
  }

  writeFileSync(join(pkg.project, 'bare.mjs'), "import { loadPyodide } from 'pyodide';\nconst py = await loadPyodide();\npy.runPython('print(1)');\n");
  const hasSnapshotFlag = runSync(pkg.bin, ['--help']).out.includes('--no-snapshot');
  const firstOne = /^1\n/m;
  const bare = "bare loadPyodide + runPython('print(1)') (installed pyodide)";
  const snapshot = hasSnapshotFlag ? "armature run -c 'print(1)', from the persisted snapshot" : "armature run -c 'print(1)' (this build has no persisted snapshot)";
  const cold = "armature run -c 'print(1)', cold (--no-snapshot)";
  const variants: Variant[] = [
    { name: bare, cmd: process.execPath, args: [join(pkg.project, 'bare.mjs')], until: firstOne },
    { name: snapshot, cmd: pkg.bin, args: ['run', '-c', 'print(1)', '--data', data], until: firstOne },
  ];
  if (hasSnapshotFlag) variants.push({ name: cold, cmd: pkg.bin, args: ['run', '-c', 'print(1)', '--data', data, '--no-snapshot'], until: firstOne });
  const samples = await interleaved(variants, pkg.project, env);
  const bareMs = median(samples.get(bare)!);
  const snapshotMs = median(samples.get(snapshot)!);
  rows.push({ suite, name: `${bare}: process start to first result, median of ${SAMPLES}`, value: bareMs, unit: 'ms', range: range(samples.get(bare)!) });
  rows.push({
    suite,
    name: `${snapshot}: process start to first result, median of ${SAMPLES}`,
    value: snapshotMs,
    unit: 'ms',
    range: range(samples.get(snapshot)!),
    ...(hasSnapshotFlag ? { target: '<= 1200 ms', pass: snapshotMs <= 1200 } : {}),
  });
  if (hasSnapshotFlag) {
    rows.push({ suite, name: `${cold}: process start to first result, median of ${SAMPLES}`, value: median(samples.get(cold)!), unit: 'ms', range: range(samples.get(cold)!) });
  }
  rows.push({
    suite,
    name: `${snapshot} / bare script (medians)`,
    value: snapshotMs / bareMs,
    unit: 'x',
    ...(hasSnapshotFlag ? { target: '<= 0.5x', pass: snapshotMs / bareMs <= 0.5 } : {}),
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
