import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { openDirectoryStore } from '../../src/platform/node.ts';
import { createWorkspace, workspaceTools } from './workspace.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';

test('write, read, stat, list with prefix, delete; events for each change', async () => {
  const bus = createEventBus();
  const events: string[] = [];
  bus.onAny((r) => events.push(`${r.type}:${(r.payload as { path: string }).path}`));
  const ws = await createWorkspace({ store: memoryStore(), bus });
  const w = await ws.write('data/a.txt', 'hello');
  assert.deepEqual([w.path, w.size, w.created], ['data/a.txt', 5, true]);
  assert.equal((await ws.write('./data/a.txt', 'hello!')).created, false);
  await ws.write('data/sub/b.bin', new Uint8Array([0, 255, 1]));
  await ws.write('other.txt', 'x');
  assert.equal(ws.readText('data/a.txt'), 'hello!');
  assert.deepEqual([...ws.read('data/sub/b.bin')], [0, 255, 1]);
  assert.deepEqual(ws.list('data').map((f) => f.path), ['data/a.txt', 'data/sub/b.bin']);
  assert.deepEqual(ws.list('dat').map((f) => f.path), []);
  assert.equal(ws.totalBytes(), 6 + 3 + 1);
  assert.equal(await ws.delete('other.txt'), true);
  assert.equal(await ws.delete('other.txt'), false);
  assert.equal(ws.stat('other.txt'), undefined);
  assert.deepEqual(events, ['workspace:written:data/a.txt', 'workspace:written:data/a.txt', 'workspace:written:data/sub/b.bin', 'workspace:written:other.txt', 'workspace:deleted:other.txt']);
});

test('mtimes strictly increase per file even within one millisecond', async () => {
  const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus() });
  const a = await ws.write('f', '1');
  const b = await ws.write('f', '2');
  assert.ok(b.mtime > a.mtime);
});

test('missing files, non-text reads and limits give named errors with hints', async () => {
  const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus(), maxFileBytes: 10, maxTotalBytes: 15 });
  assert.throws(() => ws.read('nope.txt'), (e: { code: string; message: string; hint: string }) => e.code === 'FILE_NOT_FOUND' && /no file "nope\.txt"/.test(e.message) && /list_files/.test(e.hint));
  await ws.write('bin', new Uint8Array([0xff, 0xfe]));
  assert.throws(() => ws.readText('bin'), (e: { code: string; hint: string }) => e.code === 'NOT_TEXT' && /base64/.test(e.hint));
  await assert.rejects(ws.write('big', 'x'.repeat(11)), (e: { code: string; message: string }) => e.code === 'FILE_TOO_LARGE' && /"big" is 11 bytes; the limit is 10/.test(e.message));
  await ws.write('a', 'x'.repeat(10));
  await assert.rejects(ws.write('b', 'x'.repeat(5)), (e: { code: string }) => e.code === 'WORKSPACE_FULL');
  assert.equal(ws.stat('b'), undefined);
});

test('a write that fails to persist is rolled back and files already written stay written', async () => {
  const store = memoryStore();
  const ws = await createWorkspace({ store, bus: createEventBus() });
  await ws.write('keep.txt', 'kept');
  await ws.write('f.txt', 'v1');
  store.failNext = new Error('disk full');
  await assert.rejects(ws.write('f.txt', 'v2'), (e: { code: string; message: string }) => e.code === 'PERSIST_FAILED' && /disk full/.test(e.message));
  assert.equal(ws.readText('f.txt'), 'v1');
  assert.equal(ws.readText('keep.txt'), 'kept');
  store.failNext = new Error('disk full');
  await assert.rejects(ws.write('new.txt', 'x'));
  assert.equal(ws.stat('new.txt'), undefined);
  assert.equal(ws.totalBytes(), 6);
});

test('tool handlers: utf8 and base64 round trips, bad base64, delete of a missing file', async () => {
  const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus() });
  const tools = workspaceTools(ws);
  await tools.write_file({ path: 'img.bin', content: 'AP8BAg==', encoding: 'base64' });
  assert.deepEqual([...ws.read('img.bin')], [0, 255, 1, 2]);
  assert.equal((await tools.read_file({ path: 'img.bin', encoding: 'base64' })).content, 'AP8BAg==');
  await assert.rejects(tools.read_file({ path: 'img.bin' }), /is not UTF-8 text/);
  await tools.write_file({ path: 'u.txt', content: 'héllo ✓' });
  assert.deepEqual(await tools.read_file({ path: 'u.txt' }).then((r) => [r.content, r.size, r.encoding]), ['héllo ✓', 10, 'utf8']);
  await assert.rejects(tools.write_file({ path: 'x', content: '@@@', encoding: 'base64' }), /not valid base64/);
  assert.deepEqual(await tools.list_files({}).then((r) => [r.count, r.totalBytes]), [2, 14]);
  await assert.rejects(tools.delete_file({ path: 'gone' }), /no file "gone"/);
  assert.deepEqual(await tools.delete_file({ path: 'u.txt' }), { path: 'u.txt', deleted: true });
});

test('directory store: files survive reopening, with their mtimes; deletes prune empty folders; no temp files remain', async () => {
  const dir = tempDir('store');
  const ws = await createWorkspace({ store: await openDirectoryStore(dir), bus: createEventBus() });
  const a = await ws.write('notes/a.txt', 'alpha');
  await ws.write('bin/b.dat', new Uint8Array([1, 2, 3]));
  await ws.write('bin/c.dat', new Uint8Array([4]));
  await ws.delete('bin/c.dat');
  // Durable when write() resolved: the host file is already there.
  assert.equal(readFileSync(join(dir, 'notes/a.txt'), 'utf8'), 'alpha');
  assert.equal(Math.round(statSync(join(dir, 'notes/a.txt')).mtimeMs), a.mtime);
  const again = await createWorkspace({ store: await openDirectoryStore(dir), bus: createEventBus() });
  assert.deepEqual(again.list().map((f) => [f.path, f.size]), [['bin/b.dat', 3], ['notes/a.txt', 5]]);
  assert.equal(again.stat('notes/a.txt')!.mtime, a.mtime);
  await again.delete('bin/b.dat');
  assert.equal(existsSync(join(dir, 'bin')), false);
  const leftovers = readdirSync(dir, { recursive: true }).map(String).filter((n) => n.includes('armature-tmp'));
  assert.deepEqual(leftovers, []);
});

test('reload: what another workspace on the same folder wrote and deleted, files and system areas, with events; its own queued writes stay', async () => {
  const dir = tempDir('ws-reload');
  const bus = createEventBus();
  const events: string[] = [];
  bus.onAny((r) => events.push(`${r.type}:${JSON.stringify(r.payload)}`));
  const ours = await createWorkspace({ store: await openDirectoryStore(dir), bus });
  const theirs = await createWorkspace({ store: await openDirectoryStore(dir), bus: createEventBus() });
  await ours.write('kept.txt', 'same');
  await theirs.write('gone.txt', 'soon deleted');
  assert.deepEqual(await ours.reload(), { files: 1, areas: [] });
  await theirs.write('notes/new.txt', 'from elsewhere');
  await theirs.delete('gone.txt');
  await theirs.area('runs').append('run-20260101-120000-a1b2c3.jsonl', '{"kind":"started"}\n');
  events.length = 0;
  // A write of its own still on its way (queued after the reload) when the reload lists the store is left to that write.
  const reloading = ours.reload();
  const queued = ours.write('mine.txt', 'not on disk yet');
  assert.deepEqual(await reloading, { files: 3, areas: ['runs'] });
  assert.equal(ours.readText('mine.txt'), 'not on disk yet');
  await queued;
  assert.equal(ours.readText('notes/new.txt'), 'from elsewhere');
  assert.equal(ours.stat('gone.txt'), undefined);
  assert.equal(ours.readText('mine.txt'), 'not on disk yet');
  assert.equal(ours.area('runs').readText('run-20260101-120000-a1b2c3.jsonl'), '{"kind":"started"}\n');
  // Theirs never read kept.txt (ours wrote it) nor mine.txt.
  assert.equal(ours.totalBytes(), theirs.totalBytes() + 'same'.length + 'not on disk yet'.length);
  assert.deepEqual(events.map((e) => e.split(':{')[0]), ['workspace:written', 'workspace:deleted', 'workspace:reloaded', 'workspace:written']);
  // Nothing new: nothing read, nothing said.
  events.length = 0;
  assert.deepEqual(await ours.reload(), { files: 0, areas: [] });
  assert.deepEqual(events, []);
});
