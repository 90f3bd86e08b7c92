// Other processes' runs as list_runs and read_run see them: the processes directory judges each
// process from its real folder (live, exited, crashed), and the store is read again only when
// another process lives or ended since the last read — a system alone on its folder never pays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { PRESENCE_FILE, processesDir, type Presence } from '../../src/kernel/journal/journal-layout.ts';
import { processDirectory } from '../../src/kernel/journal/process-liveness.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { RunsElsewhere } from './runs-elsewhere.ts';

/** Writes the presence file of process `id` in `dataDir`, its heartbeat at `beat` (ms). */
function presence(dataDir: string, p: Omit<Presence, 'host' | 'persona'>, beat = Date.now()): void {
  const folder = join(processesDir(dataDir), p.id);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, PRESENCE_FILE), JSON.stringify({ ...p, persona: 'default', host: hostname() }));
  utimesSync(join(folder, PRESENCE_FILE), beat / 1000, beat / 1000);
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

test('each process is judged from its folder: live, exited (with its end), crashed (its last heartbeat), none without a folder', async () => {
  const data = tempDir('runs-elsewhere');
  const dead = await deadPid();
  const now = Date.now();
  presence(data, { id: 'a-1-live', pid: process.pid, command: 'agent', startedAt: now - 3000 });
  presence(data, { id: 'b-2-exited', pid: process.pid, command: 'mcp', startedAt: now - 2000, endedAt: now - 1000 });
  presence(data, { id: 'c-3-crashed', pid: dead, command: 'agent', startedAt: now - 1000 }, now - 500);
  const dir = processDirectory(data);
  assert.deepEqual(dir.list().map((p) => [p.id, p.state, p.command]), [['a-1-live', 'live', 'agent'], ['b-2-exited', 'exited', 'mcp'], ['c-3-crashed', 'crashed', 'agent']]);
  assert.equal(dir.status('a-1-live')?.endedAt, undefined);
  assert.equal(dir.status('b-2-exited')?.endedAt, now - 1000);
  assert.ok(Math.abs(dir.status('c-3-crashed')!.endedAt! - (now - 500)) < 1000, 'a crashed process ended at its last heartbeat');
  assert.equal(dir.status('d-4-unknown'), undefined);
  assert.equal(dir.status('../escape'), undefined, 'an id that is no folder name is nobody');
  assert.equal('host' in dir.status('a-1-live')!, false, 'the host stays in the folder');
});

test('the store is read again only when another process lives, or ended since the last read', async () => {
  const data = tempDir('runs-elsewhere-reload');
  const now = Date.now();
  let reads = 0;
  presence(data, { id: 'self-1-x', pid: process.pid, command: 'mcp', startedAt: now });
  // Ended long before this process started: what it wrote was read at boot.
  presence(data, { id: 'old-2-x', pid: process.pid, command: 'agent', startedAt: 1000, endedAt: 2000 });
  const elsewhere = new RunsElsewhere(processDirectory(data), async () => void reads++, 'self-1-x');
  await elsewhere.look([]);
  assert.equal(reads, 0, 'alone on its folder (itself live, the others ended before it started): no read');
  presence(data, { id: 'other-3-x', pid: process.pid, command: 'agent', startedAt: Date.now() });
  await elsewhere.look([]);
  await elsewhere.look([]);
  assert.equal(reads, 2, 'another process lives: read each time, it may have written since');
  presence(data, { id: 'other-3-x', pid: process.pid, command: 'agent', startedAt: now, endedAt: Date.now() });
  await elsewhere.look([]);
  assert.equal(reads, 3, 'it ended after the last read: read once more for its last lines');
  // Past two heartbeats after its end (its end moved back, as the clock would move on).
  presence(data, { id: 'other-3-x', pid: process.pid, command: 'agent', startedAt: now, endedAt: Date.now() - 10_000 });
  await elsewhere.look([]);
  assert.equal(reads, 3, 'ended before the last read: nothing new');
  const live = await elsewhere.look(['run-20260101-000000-aaaaaa']);
  assert.ok(live.active?.has('run-20260101-000000-aaaaaa'));
  assert.equal(live.self, 'self-1-x');
  assert.equal(live.processOf?.('other-3-x')?.state, 'exited');
});
