// The Node shared store: whole lines from every handle, a line a crash cut short kept apart from
// the next, blobs written once, notice of another handle's append, and a lock that excludes other
// processes and is taken back from one that died holding it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { until } from '../../test/helpers/until.ts';
import { openSharedDirectory } from './node-shared-directory.ts';

test('lines appended by two handles are read whole by both; a torn line stays a line of its own', async () => {
  const dir = join(tempDir('shared'), 'changes');
  const a = await openSharedDirectory(dir);
  const b = await openSharedDirectory(dir);
  await a.append('one');
  await b.append('two');
  // A crash halfway through a write: the bytes of half a line, no line break.
  appendFileSync(join(dir, 'journal.jsonl'), '\n{"half":');
  const first = await a.read(0);
  assert.deepEqual(first.lines.map((l) => l.text), ['one', 'two']);
  assert.ok(first.rest > 0, 'the unfinished line is left for later');
  await b.append('three');
  const next = await a.read(first.cursor);
  assert.deepEqual(next.lines.map((l) => l.text), ['{"half":', 'three'], 'the next append ends the torn line instead of joining it');
  assert.equal(next.rest, 0);
  await assert.rejects(a.append('x\ny'), /line break/);
  await a.close();
  await b.close();
});

test('blobs are written once, atomically, and read synchronously', async () => {
  const dir = join(tempDir('shared'), 'changes');
  const s = await openSharedDirectory(dir);
  await s.putBlob('a.json', new TextEncoder().encode('first'));
  await s.putBlob('a.json', new TextEncoder().encode('second'));
  assert.equal(new TextDecoder().decode(s.blob('a.json')), 'first', 'a taken name is left as it is');
  assert.equal(s.blob('missing.json'), undefined);
  assert.equal(s.blob('../escape'), undefined);
  await assert.rejects(s.putBlob('../escape', new Uint8Array(1)), (e: Error & { code?: string }) => e.code === 'INVALID_BLOB_NAME');
  assert.deepEqual(readdirSync(join(dir, 'tmp')), [], 'no temporary file left');
  await s.close();
});

test("another handle's append is noticed without a read", async () => {
  const dir = join(tempDir('shared'), 'changes');
  const a = await openSharedDirectory(dir);
  const b = await openSharedDirectory(dir, { pollMs: 60_000 });
  let heard = 0;
  const w = b.watch(() => heard++);
  await a.append('hello');
  await until('the watcher to hear of the append', () => heard > 0, 5000);
  w.dispose();
  await a.close();
  await b.close();
});

test('the lock excludes another process, and is taken back at once from one that died holding it', async () => {
  const dir = join(tempDir('shared'), 'changes');
  const s = await openSharedDirectory(dir, { lockTimeoutMs: 300 });
  // A process that takes the lock and holds it until it is killed.
  const hooks = new URL('./source-hooks.mjs', import.meta.url).href;
  const holder = spawn(
    process.execPath,
    ['--import', hooks, '--input-type=module', '-e', `import { openSharedDirectory } from ${JSON.stringify(new URL('./node-shared-directory.ts', import.meta.url).href)}; const s = await openSharedDirectory(${JSON.stringify(dir)}); await s.lock('t', async () => { console.log('held'); setInterval(() => {}, 1000); await new Promise(() => {}); });`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  holder.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await until('the other process to take the lock', () => out.includes('held'), 60_000);
  await assert.rejects(
    s.lock('t', async () => 'mine'),
    (e: Error & { code?: string }) => e.code === 'STORE_BUSY' && e.message.includes(`process ${holder.pid}`),
  );
  assert.equal(await s.lock('other', async () => 'free'), 'free', 'other keys are not held');
  const exited = new Promise((r) => holder.once('exit', r));
  holder.kill('SIGKILL');
  await exited;
  // Within the 300 ms timeout: a live holder would have made this STORE_BUSY.
  assert.equal(await s.lock('t', async () => 'mine'), 'mine', 'a dead holder loses the lock');
  assert.equal(existsSync(join(dir, 'locks', 't.lock')), false, 'released');
  await s.close();
});
