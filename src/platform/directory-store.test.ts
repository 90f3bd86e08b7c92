// The Node directory store never follows a symbolic link planted in its folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDirectoryStore } from './directory-store.ts';
import { createWorkspace } from '../../upgrades/workspace/workspace.ts';
import { createEventBus } from '../kernel/event-bus.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

function plant() {
  const store = tempDir('store');
  const outside = tempDir('outside');
  writeFileSync(join(outside, 'secret.txt'), 'outside secret');
  mkdirSync(join(outside, 'dir'));
  writeFileSync(join(outside, 'dir', 'inner.txt'), 'outside inner');
  writeFileSync(join(store, 'ok.txt'), 'inside');
  symlinkSync(join(outside, 'secret.txt'), join(store, 'link-file.txt'));
  symlinkSync(join(outside, 'dir'), join(store, 'link-dir'));
  return { store, outside };
}

test('a planted link to a file or a folder outside is never read', async () => {
  const { store } = plant();
  const s = await openDirectoryStore(store);
  const files = await s.load();
  assert.deepEqual(files.map((f) => f.path), ['ok.txt']);
  assert.ok(!files.some((f) => new TextDecoder().decode(f.data).includes('outside')));
});

test('a write to a planted file link replaces the link inside; the outside file is unchanged', async () => {
  const { store, outside } = plant();
  const s = await openDirectoryStore(store);
  await s.put({ path: 'link-file.txt', data: bytes('written'), mtime: Date.now() });
  assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'outside secret');
  assert.equal(readFileSync(join(store, 'link-file.txt'), 'utf8'), 'written');
});

test('a write or delete through a planted folder link is refused; nothing outside changes', async () => {
  const { store, outside } = plant();
  const s = await openDirectoryStore(store);
  await assert.rejects(s.put({ path: 'link-dir/new.txt', data: bytes('x'), mtime: Date.now() }), (e: Error & { code: string }) => {
    assert.equal(e.code, 'UNSAFE_STORE_PATH');
    assert.match(e.message, /link-dir is a symbolic link/);
    return true;
  });
  await assert.rejects(s.put({ path: 'link-dir/inner.txt', data: bytes('x'), mtime: Date.now() }), /symbolic link/);
  await assert.rejects(s.delete('link-dir/inner.txt'), /symbolic link/);
  assert.deepEqual(readdirSync(join(outside, 'dir')), ['inner.txt']);
  assert.equal(readFileSync(join(outside, 'dir', 'inner.txt'), 'utf8'), 'outside inner');
  // Deleting the file link removes the link only.
  await s.delete('link-file.txt');
  assert.equal(existsSync(join(store, 'link-file.txt')), false);
  assert.equal(readFileSync(join(outside, 'secret.txt'), 'utf8'), 'outside secret');
});

test('a store folder that is itself a link is refused', async () => {
  const { outside } = plant();
  const parent = tempDir('parent');
  symlinkSync(outside, join(parent, 'workspace'));
  await assert.rejects(openDirectoryStore(join(parent, 'workspace')), /the store folder is a symbolic link/);
});

test('through the workspace: the write fails with PERSIST_FAILED, is rolled back, and other files are intact', async () => {
  const { store, outside } = plant();
  const ws = await createWorkspace({ store: await openDirectoryStore(store), bus: createEventBus() });
  await assert.rejects(ws.write('link-dir/x.txt', 'payload'), (e: Error & { code: string }) => e.code === 'PERSIST_FAILED' && /symbolic link/.test(e.message));
  assert.equal(ws.stat('link-dir/x.txt'), undefined);
  assert.equal(ws.readText('ok.txt'), 'inside');
  assert.equal(existsSync(join(outside, 'dir', 'x.txt')), false);
});

/** Every path under `dir` (files and folders), relative, sorted. */
function tree(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(rel);
    if (e.isDirectory()) out.push(...tree(dir, rel));
  }
  return out.sort();
}

/** Temporary files the store made (its folder's contents, and the older layout's marked names). */
const temps = (dir: string) => tree(dir).filter((p) => /^\.armature\/\.tmp\/./.test(p) || /\.armature-tmp-\d+-/.test(p));

/** A pid no process has (the highest the kernel would hand out, plus one). */
const DEAD_PID = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;

test('a file written where a folder is fails with the reason and leaves no temporary file', async () => {
  const dir = tempDir('conflict');
  const s = await openDirectoryStore(dir);
  await s.put({ path: 'a/b.txt', data: bytes('inside a'), mtime: Date.now() });
  await assert.rejects(s.put({ path: 'a', data: bytes('over the folder'), mtime: Date.now() }), (e: Error & { code?: string }) => {
    assert.match(e.message, /a is a folder/);
    return true;
  });
  assert.deepEqual(temps(dir), []);
  assert.deepEqual((await s.load()).map((f) => [f.path, new TextDecoder().decode(f.data)]), [['a/b.txt', 'inside a']]);
});

test('temporary files left by killed writers are removed at open; those of a live process are kept', async () => {
  const dir = tempDir('orphans');
  // The older layout, beside the files they were for.
  mkdirSync(join(dir, 'notes'));
  writeFileSync(join(dir, 'notes', 'plan.md'), 'the plan');
  writeFileSync(join(dir, 'notes', `plan.md.armature-tmp-${DEAD_PID}-k2j3`), 'x'.repeat(4096));
  writeFileSync(join(dir, `big.bin.armature-tmp-${DEAD_PID}-z9`), 'y'.repeat(65536));
  let s = await openDirectoryStore(dir);
  assert.deepEqual(temps(dir), []);
  assert.deepEqual((await s.load()).map((f) => f.path), ['notes/plan.md']);
  // The current layout: the store's own folder.
  writeFileSync(join(dir, '.armature', '.tmp', `${DEAD_PID}-abc`), 'left by a killed writer');
  writeFileSync(join(dir, '.armature', '.tmp', `${process.pid}-live`), 'a write under way here');
  s = await openDirectoryStore(dir);
  assert.deepEqual(temps(dir), [`.armature/.tmp/${process.pid}-live`]);
  // Once the folder exists, names that look like the older layout's are the user's own.
  await s.put({ path: `keep.armature-tmp-${DEAD_PID}-mine`, data: bytes('mine'), mtime: Date.now() });
  s = await openDirectoryStore(dir);
  assert.deepEqual((await s.load()).map((f) => f.path), [`keep.armature-tmp-${DEAD_PID}-mine`, 'notes/plan.md']);
});

test('the store\'s own temporary folder is neither listed nor writable through the store', async () => {
  const dir = tempDir('reserved');
  const s = await openDirectoryStore(dir);
  await assert.rejects(s.put({ path: '.armature/.tmp/x', data: bytes('x'), mtime: Date.now() }), /reserved for the store's temporary files/);
  await assert.rejects(s.delete('.armature/.tmp/x'), /reserved for the store's temporary files/);
  writeFileSync(join(dir, '.armature', '.tmp', `${process.pid}-pending`), 'pending');
  await s.put({ path: '.armature/runs/r1.jsonl', data: bytes('{}'), mtime: Date.now() });
  assert.deepEqual((await s.load()).map((f) => f.path), ['.armature/runs/r1.jsonl']);
});

test('a store folder that cannot be made fails at once, and missing parents are made', { timeout: 30_000 }, async () => {
  const root = tempDir('nested');
  const deep = join(root, 'a', 'b', 'c');
  const s = await openDirectoryStore(deep);
  await s.put({ path: 'x.txt', data: bytes('x'), mtime: Date.now() });
  assert.equal(readFileSync(join(deep, 'x.txt'), 'utf8'), 'x');
  // A file where a folder must go.
  writeFileSync(join(root, 'file'), 'not a folder');
  await assert.rejects(openDirectoryStore(join(root, 'file', 'sub')), /ENOTDIR/);
  // /proc refuses new folders with ENOENT, where Node 20's own recursive mkdir never settles.
  if (existsSync('/proc/self')) {
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('openDirectoryStore did not settle within 5 s')), 5000).unref());
    await assert.rejects(Promise.race([openDirectoryStore('/proc/armature-nonexistent/x'), timeout]), /ENOENT: no such file or directory, mkdir '\/proc\/armature-nonexistent'/);
  }
});
