// Every process on a data folder is visible to a watcher of it, started before or after it, and
// none shows as running forever: real child processes that boot a persona on the folder, one
// killed with SIGKILL (crashed), one stopped with SIGTERM (exited), one frozen with SIGSTOP (lost,
// then back with SIGCONT).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { watchProcesses, type ProcessRecord } from '../../src/kernel/journal/processes-watcher.ts';
import type { ProcessInfo } from '../../src/contracts/process-contract.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const child = fileURLToPath(new URL('../fixtures/journal-child.ts', import.meta.url));
const hooks = fileURLToPath(new URL('../../src/platform/source-hooks.mjs', import.meta.url));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts a child on `dataDir`; resolves once it has booted, with its process id. */
function start(dataDir: string, command: string): Promise<{ child: ChildProcess; id: string }> {
  const c = spawn(process.execPath, ['--import', hooks, child, dataDir, command], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  return new Promise((resolve, reject) => {
    let out = '';
    c.once('exit', (code) => reject(new Error(`child exited with ${code}: ${out}`)));
    c.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m) resolve({ child: c, id: m[1]! });
    });
  });
}

test('processes started before and after the watcher appear with their events; kill -9, SIGTERM and SIGSTOP end them as crashed, exited and lost', async () => {
  const dataDir = tempDir('process-journal');
  const early = await start(dataDir, 'agent');
  const records: ProcessRecord[] = [];
  const started: ProcessInfo[] = [];
  const ended: [string, string][] = [];
  const watcher = watchProcesses({
    dataDir,
    onRecord: (r) => records.push(r),
    onStarted: (p) => started.push(p),
    onEnded: (p, reason) => ended.push([p.id, reason]),
    pollMs: 200,
    staleMs: 1500,
  });
  try {
    assert.deepEqual(started.map((p) => [p.id, p.command, p.persona]), [[early.id, 'agent', 'reader']]);
    // Its boot is in the history: the journal started before the upgrades loaded.
    await until('the early process\'s boot, replayed', () => records.some((r) => r.process === early.id && r.type === 'system:booted'));
    const late = await start(dataDir, 'mcp');
    const frozen = await start(dataDir, 'library');
    await until('the late processes', () => started.length === 3);
    const ticks = (id: string) => records.filter((r) => r.process === id && r.type === 'python:stdout').length;
    await until('live events of all three', () => ticks(early.id) > 3 && ticks(late.id) > 3 && ticks(frozen.id) > 3);
    // In order per process, as the bus emitted them.
    for (const id of [early.id, late.id]) {
      const seqs = records.filter((r) => r.process === id).map((r) => r.seq);
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    }

    early.child.kill('SIGKILL');
    await until('the killed process to end', () => ended.some(([id]) => id === early.id));
    late.child.kill('SIGTERM');
    await until('the stopped process to end', () => ended.some(([id]) => id === late.id));
    frozen.child.kill('SIGSTOP');
    await until('the frozen process to be lost', () => ended.some(([id]) => id === frozen.id), 10_000);
    assert.deepEqual(ended, [[early.id, 'crashed'], [late.id, 'exited'], [frozen.id, 'lost']]);
    // The stopped one said goodbye: its modules' disposal is the last of its events.
    assert.equal(records.filter((r) => r.process === late.id).at(-1)?.type, 'module:disposed');
    const listed = watcher.processes();
    assert.ok(listed.every((p) => typeof p.endedAt === 'number'), JSON.stringify(listed));

    frozen.child.kill('SIGCONT');
    await until('the frozen process to come back', () => started.filter((p) => p.id === frozen.id).length === 2, 10_000);
    assert.equal(watcher.processes().find((p) => p.id === frozen.id)?.endedAt, undefined);
    const before = ticks(frozen.id);
    await until('its events again', () => ticks(frozen.id) > before + 3);
  } finally {
    watcher.dispose();
  }
});

test('a process that exits without disposing (process.exit) still writes what was pending and says it exited', async () => {
  const dataDir = tempDir('process-journal-exit');
  const c = spawn(process.execPath, ['--import', hooks, child, dataDir, 'exit-at-once'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  const id = await new Promise<string>((resolve) => {
    let out = '';
    c.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  assert.equal(await new Promise((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', r))), 3);
  const records: ProcessRecord[] = [];
  const ended: string[] = [];
  const watcher = watchProcesses({ dataDir, onRecord: (r) => records.push(r), onStarted: () => undefined, onEnded: (_p, reason) => ended.push(reason) });
  watcher.dispose();
  assert.deepEqual(ended, ['exited']);
  assert.equal(records.filter((r) => r.process === id).at(-1)?.type, 'python:stdout');
  assert.equal((records.filter((r) => r.process === id).at(-1)?.payload as { chunk: string } | undefined)?.chunk, 'the last words\n');
});
