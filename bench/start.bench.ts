// Process start to first result, in fresh Node processes, interleaved so background load falls on
// every variant alike: `armature run -c 'print(1)'` starting Python anew (--no-snapshot) and from
// the persisted start-up snapshot, and a bare script that only loads Pyodide and prints.
// This is the checkout's CLI (the sources, compiled by tsx at every start: ~0.4 s more); the
// start-up targets (<= 1.2 s, <= 0.5x the bare script) are for the package as users install it,
// measured in package.bench.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { medianRow, type BenchRow } from './types.ts';

const suite = 'start';
const bin = fileURLToPath(new URL('../bin/armature.js', import.meta.url));

/** ms from spawning `args` until its stdout shows `1`, and until it exits. */
function timeToFirstResult(args: string[], cwd: string): Promise<{ first: number; exit: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first: number | undefined;
    let out = '';
    let err = '';
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (first === undefined && /^1$/m.test(out)) first = performance.now() - t0;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0 || first === undefined) reject(new Error(`${args.join(' ')} exited ${code} without printing 1: ${out}${err}`));
      else resolve({ first, exit: performance.now() - t0 });
    });
  });
}

export async function run(samples = 5): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'armature-bench-start-'));
  try {
    const snapshotData = join(dir, 'with-snapshot');
    const coldData = join(dir, 'cold');
    const bare = join(dir, 'bare.mjs');
    const pyodide = pathToFileURL(createRequire(import.meta.url).resolve('pyodide/pyodide.mjs')).href;
    writeFileSync(bare, `import { loadPyodide } from ${JSON.stringify(pyodide)};\nconst py = await loadPyodide();\npy.runPython('print(1)');\n`);
    const variants: Record<string, string[]> = {
      "armature run -c 'print(1)', from the persisted snapshot": [bin, 'run', '-c', 'print(1)', '--data', snapshotData],
      "armature run -c 'print(1)' --no-snapshot (starts Python anew)": [bin, 'run', '-c', 'print(1)', '--data', coldData, '--no-snapshot'],
      'bare script: loadPyodide() + runPython("print(1)")': [bare],
    };
    // Makes the snapshot the measured runs restore.
    await timeToFirstResult(variants["armature run -c 'print(1)', from the persisted snapshot"]!, dir);
    const first: Record<string, number[]> = {};
    const exit: Record<string, number[]> = {};
    for (let i = 0; i < samples; i++) {
      for (const [name, args] of Object.entries(variants)) {
        const t = await timeToFirstResult(args, dir);
        (first[name] ??= []).push(t.first);
        (exit[name] ??= []).push(t.exit);
      }
    }
    const [snap, cold, bareName] = Object.keys(variants) as [string, string, string];
    const bareMedian = medianRow(suite, '', first[bareName]!, 'ms').value;
    const rows: BenchRow[] = [
      medianRow(suite, `${snap}: first result, median of ${samples}`, first[snap]!, 'ms'),
      medianRow(suite, `${cold}: first result, median of ${samples}`, first[cold]!, 'ms'),
      medianRow(suite, `${bareName}: first result, median of ${samples}`, first[bareName]!, 'ms'),
    ];
    rows.push({ suite, name: `${snap} / the bare script (medians; the checkout's CLI)`, value: rows[0]!.value / bareMedian, unit: 'x' });
    for (const name of [snap, cold]) rows.push(medianRow(suite, `${name}: process exit, median of ${samples}`, exit[name]!, 'ms'));
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
