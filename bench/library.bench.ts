// Armature as a library dropped into an app (issue: "a library people drop into the agent they
// already have"), measured on the packed tarball:
// - what installing it costs: bytes on disk and packages under node_modules of an empty project
//   that installs the tarball alone (the optional peers left out, as npm does) vs with every
//   optional peer (the AI SDK and its providers, the MCP SDK, Lit);
// - `import('armature')` to the first `execute_python` result in a fresh process, booting the
//   `python` persona (kernel, Workspace, ToolRunner, PyodideRuntime, PythonTool) vs the default
//   persona (every upgrade), both from a persisted start-up snapshot; target: python <= 0.7x.
// Median of 7 each, the two personas interleaved, after one warm-up run of each (which also makes
// each data folder's snapshot).
import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONAL_PEERS } from '../src/kernel/optional-peer.ts';
import { packAndInstall, runSync } from '../test/helpers/packed-install.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

const suite = 'library';
const SAMPLES = 7;

/** Bytes of every file under `dir` (what the install put on disk), and how many packages it holds. */
function footprint(dir: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isSymbolicLink()) continue;
      if (e.isDirectory()) walk(full);
      else {
        bytes += statSync(full).size;
        // A package is a folder with a package.json directly in a node_modules/<name> or node_modules/@scope/<name>.
        if (e.name === 'package.json' && /node_modules[\\/](@[^\\/]+[\\/])?[^\\/@]+$/.test(d)) packages++;
      }
    }
  };
  walk(join(dir, 'node_modules'));
  return { bytes, packages };
}

/**
 * ms from just before `import('armature')` to the first execute_python result (`ms`), and to the
 * booted system (`boot`), measured inside a fresh process.
 */
function firstResult(project: string, persona: string, dataDir: string): Promise<{ ms: number; boot: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['first-result.mjs', persona, dataDir], { cwd: project });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(/^ms (\d+(\.\d+)?)$/m.exec(out)?.[1]);
      const boot = Number(/^boot (\d+(\.\d+)?)$/m.exec(out)?.[1]);
      if (code !== 0 || !Number.isFinite(ms) || !Number.isFinite(boot)) reject(new Error(`first result (${persona}): exit ${code}\n${out}${err}`));
      else resolve({ ms, boot });
    });
  });
}

const FIRST_RESULT = `const t0 = performance.now();
const { boot } = await import('armature');
const sys = await boot({ persona: process.argv[2], dataDir: process.argv[3] });
const booted = performance.now() - t0;
const r = await sys.tools.executeTool('execute_python', { code: '6 * 7' });
const ms = performance.now() - t0;
if (!r.ok || r.value.value !== 42) throw new Error(JSON.stringify(r));
console.log('ms ' + ms.toFixed(1));
console.log('boot ' + booted.toFixed(1));
await sys.dispose();
`;

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const bare = packAndInstall(tempDir('bench-library'));
  const withPeers = tempDir('bench-library-peers');
  copyFileSync(join(bare.project, bare.tarball), join(withPeers, bare.tarball));
  writeFileSync(join(withPeers, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const peers = Object.entries(OPTIONAL_PEERS).map(([name, range]) => `${name}@${range}`);
  const install = runSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${bare.tarball}`, ...peers], { cwd: withPeers });
  if (install.code !== 0) throw new Error(`npm install with the peers failed:\n${install.err}`);

  const a = footprint(bare.project);
  const b = footprint(withPeers);
  const mb = (n: number) => n / 1024 / 1024;
  rows.push({ suite, name: 'install size, tarball alone (optional peers left out)', value: mb(a.bytes), unit: 'MB' });
  rows.push({ suite, name: `install size, with every optional peer (${Object.keys(OPTIONAL_PEERS).join(', ')})`, value: mb(b.bytes), unit: 'MB' });
  rows.push({ suite, name: 'packages installed, tarball alone', value: a.packages, unit: 'packages' });
  rows.push({ suite, name: 'packages installed, with every optional peer', value: b.packages, unit: 'packages' });
  rows.push({ suite, name: 'install size alone / with peers', value: a.bytes / b.bytes, unit: 'x' });

  writeFileSync(join(bare.project, 'first-result.mjs'), FIRST_RESULT);
  const personas = ['python', 'default'] as const;
  const data = Object.fromEntries(personas.map((p) => [p, tempDir(`bench-library-${p}`)]));
  for (const p of personas) await firstResult(bare.project, p, data[p]!);
  const samples: Record<string, number[]> = { python: [], default: [] };
  const boots: Record<string, number[]> = { python: [], default: [] };
  for (let i = 0; i < SAMPLES; i++) {
    for (const p of personas) {
      const r = await firstResult(bare.project, p, data[p]!);
      samples[p]!.push(r.ms);
      boots[p]!.push(r.boot);
    }
  }
  rows.push(medianRow(suite, `import('armature') to first execute_python result, python persona (kernel, Workspace, ToolRunner, PyodideRuntime, PythonTool), median of ${SAMPLES}`, samples.python!, 'ms'));
  rows.push(medianRow(suite, `import('armature') to first execute_python result, default persona (every upgrade), median of ${SAMPLES}`, samples.default!, 'ms'));
  const ratio = percentile(samples.python!, 50) / percentile(samples.default!, 50);
  rows.push({ suite, name: 'python persona / default persona (medians)', value: ratio, unit: 'x', target: '<= 0.7x', pass: ratio <= 0.7 });
  // What the minimal boot saves by itself: Python's confined child starts in the background of
  // either boot (an early start), so the first result waits for it in both.
  rows.push(medianRow(suite, `import('armature') to the booted system, python persona, median of ${SAMPLES}`, boots.python!, 'ms'));
  rows.push(medianRow(suite, `import('armature') to the booted system, default persona, median of ${SAMPLES}`, boots.default!, 'ms'));
  rows.push({ suite, name: 'to the booted system: python persona / default persona (medians)', value: percentile(boots.python!, 50) / percentile(boots.default!, 50), unit: 'x' });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
