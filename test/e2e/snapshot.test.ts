// The persisted start-up snapshot across real processes: made by one, restored by the next,
// re-made when broken, and never read or written with --no-snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const probeScript = fileURLToPath(new URL('../fixtures/snapshot-probe.ts', import.meta.url));
// By URL: the probe runs in a folder without node_modules. It runs the sources (tsx, `.py` as text).
const sourceHooks = new URL('../../src/platform/source-hooks.mjs', import.meta.url).href;
const cwd = tempDir('snapshot-cwd');
const run = (args: string[]) => {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const cli = (...args: string[]) => run([bin, ...args]);
const probe = (dataDir: string, mode = 'persist') => {
  const r = run(['--import', sourceHooks, probeScript, dataDir, mode]);
  assert.equal(r.code, 0, r.err);
  return { ...(JSON.parse(r.out.trim().split('\n').at(-1)!) as { result: { ok: boolean; value: { value: unknown; stdout: string } }; fromSnapshot: boolean; progress: string[] }), err: r.err };
};
const snapshotFiles = (dataDir: string) => {
  const dir = join(dataDir, 'cache', 'pyodide-snapshot');
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
};
const magic = (path: string) => readFileSync(path).readUInt32LE(0);

test('a snapshot made by one process is restored by the next, through boot and through the CLI', () => {
  const data = tempDir('snapshot-data');
  const first = probe(data);
  assert.deepEqual([first.result.ok, first.result.value.value, first.result.value.stdout], [true, [42, true], 'hi\n']);
  assert.equal(first.fromSnapshot, false);
  const [file] = snapshotFiles(data);
  // Python runs in a confined child here: the host keeps the child's snapshot under a key of its own.
  assert.match(file ?? '', /pyodide-0\.29\.5-[0-9a-f]{24}\.snapshot\.confined$/);
  assert.equal(magic(file!), 1886286592);
  const second = probe(data);
  assert.equal(second.fromSnapshot, true);
  assert.deepEqual(second.result.value.value, [42, true]);
  assert.ok(second.progress.includes('restoring Python from the start-up snapshot'), second.progress.join(' | '));
  const viaCli = cli('run', '-c', 'print("from the cli")\n6 * 7', '--data', data);
  assert.equal(viaCli.code, 0, viaCli.err);
  assert.equal(viaCli.out, 'from the cli\n=> 42\n');
  assert.equal(viaCli.err, '');
});

test('a corrupt snapshot file: the run still works, the log says so once, and the file is made again', () => {
  const data = tempDir('snapshot-corrupt');
  assert.equal(cli('run', '-c', '1', '--data', data).code, 0);
  const [file] = snapshotFiles(data);
  writeFileSync(file!, Buffer.alloc(1 << 20, 0x5a));
  const r = cli('run', '-c', 'print("still works")', '--data', data);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'still works\n');
  const mentions = r.err.split('\n').filter((l) => /snapshot/.test(l));
  assert.equal(mentions.length, 1, r.err);
  assert.match(mentions[0]!, /\[PyodideRuntime\] the start-up snapshot from the cache could not be restored \(Snapshot has invalid magic number\); Python started without it\. A new snapshot was made\./);
  assert.equal(magic(file!), 1886286592, 'replaced by a good one');
  assert.equal(probe(data).fromSnapshot, true);
});

test('--no-snapshot never reads or writes the snapshot cache', () => {
  const fresh = tempDir('snapshot-off');
  const r = cli('run', '-c', 'print(1)', '--data', fresh, '--no-snapshot');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '1\n');
  assert.equal(existsSync(join(fresh, 'cache')), false);
  // A broken file is neither read (no warning) nor replaced.
  const data = tempDir('snapshot-off-broken');
  assert.equal(cli('run', '-c', '1', '--data', data).code, 0);
  const [file] = snapshotFiles(data);
  writeFileSync(file!, Buffer.alloc(4096, 0x5a));
  const mtime = statSync(file!).mtimeMs;
  const off = cli('call', 'execute_python', '{"code": "print(2)"}', '--data', data, '--no-snapshot');
  assert.equal(off.code, 0, off.err);
  assert.equal(JSON.parse(off.out).value.stdout, '2\n');
  assert.equal(off.err, '');
  assert.equal(statSync(file!).mtimeMs, mtime);
  assert.deepEqual(readFileSync(file!), Buffer.alloc(4096, 0x5a));
  assert.equal(probe(data, 'off').fromSnapshot, false);
  assert.match(cli('--help').out, /--no-snapshot\s+start Python anew, without reading or writing the start-up snapshot/);
});
