// What an agent-made upgrade whose init loops costs the commands after it (issue 28.8: it used to
// add ~21 s to every command). Through the checkout's CLI, each command a process of its own, on one
// data folder holding the upgrade in force with its init looping:
// - `armature call list_files --safe`: nothing agent-made starts (the floor);
// - `armature call list_files`: the upgrade is held back, as in every command after the one that
//   found the loop;
// - `armature call retry_upgrade`: a command that runs into the loop (it starts the upgrade, whose
//   init runs past its 2000 ms limit, and holds it back again), i.e. what the first command pays.
// Median of 5, the three interleaved, after one warm-up of each.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { probeBlueprint, probeUpgrade } from '../test/helpers/made-upgrade-fixtures.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

const suite = 'held-back';
const SAMPLES = 5;
const bin = fileURLToPath(new URL('../bin/armature.js', import.meta.url));

/** Runs `armature ...args --data data`; resolves to its wall time and exit code. */
function cli(args: readonly string[], data: string): Promise<{ ms: number; code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bin, ...args, '--data', data], { cwd: data, env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: performance.now() - t0, code, out }));
  });
}

export async function run(): Promise<BenchRow[]> {
  const data = tempDir('bench-held-back');
  const setup = async (...args: string[]) => {
    const r = await cli(args, data);
    if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}\n${r.out}`);
  };
  await setup('call', 'create_blueprint', JSON.stringify(probeBlueprint('loopy')));
  await setup('call', 'create_upgrade', JSON.stringify(probeUpgrade('loopy', '0xA00001')));
  await setup('call', 'update_persona', JSON.stringify({ add_upgrades: ['loopy'] }));
  await setup('call', 'write_file', JSON.stringify({ path: 'hang/loopy/init.txt', content: 'loop' }));

  const variants = [
    { name: 'armature call list_files --safe (nothing agent-made starts)', args: ['call', 'list_files', '{}', '--safe'], code: 0 },
    { name: 'armature call list_files, the looping upgrade held back', args: ['call', 'list_files', '{}'], code: 0 },
    { name: 'armature call retry_upgrade (runs into the loop: its 2000 ms limit)', args: ['call', 'retry_upgrade', '{"id":"loopy"}'], code: 1 },
  ];
  const samples = new Map(variants.map((v) => [v.name, [] as number[]]));
  const once = async (v: (typeof variants)[number]) => {
    const r = await cli(v.args, data);
    if (r.code !== v.code) throw new Error(`${v.name}: exit ${r.code}, expected ${v.code}\n${r.out}`);
    if (v.code === 1 && !/INIT_TIMEOUT|did not finish within 2000 ms/.test(r.out)) throw new Error(`${v.name}: did not run into the loop\n${r.out}`);
    return r.ms;
  };
  for (const v of variants) await once(v);
  for (let i = 0; i < SAMPLES; i++) for (const v of variants) samples.get(v.name)!.push(await once(v));

  const [safe, held, loop] = variants.map((v) => samples.get(v.name)!);
  const floor = percentile(safe!, 50);
  return [
    medianRow(suite, variants[0]!.name, safe!, 'ms'),
    medianRow(suite, variants[1]!.name, held!, 'ms', { text: '<= 1.3x the --safe command (was ~21 s more per command)', pass: (m) => m <= 1.3 * floor }),
    medianRow(suite, variants[2]!.name, loop!, 'ms', { text: '<= the --safe command + 5 s (its 2 s limit and a worker start)', pass: (m) => m <= floor + 5000 }),
  ];
}
