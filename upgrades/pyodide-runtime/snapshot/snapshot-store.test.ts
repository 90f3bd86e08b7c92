// The snapshot store's decisions, with an in-memory cache standing in for the platform's (the
// real caches are tested in src/platform/, and the whole path with real Pyodide in
// runtime-snapshot.test.ts and test/e2e/snapshot.test.ts).
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { memoryCache } from '../../../test/helpers/memory-platform.ts';
import type { InitResult } from '../protocol/protocol.ts';
import { readFileSync } from 'node:fs';
import { SnapshotStore, forgetMemorySnapshots, snapshotKey, snapshotKeyFor } from './snapshot-store.ts';

const started = (extra: Partial<InitResult> = {}): InitResult => ({ pythonVersion: '3.13.2', pyodideVersion: '0.29.5', transport: 'shared-memory', fromSnapshot: false, ...extra });
const bytes = (n: number) => new Uint8Array(64).fill(n);

beforeEach(() => forgetMemorySnapshots());

test('the key names the Pyodide version and a hash of what the snapshot holds', async () => {
  assert.match(await snapshotKey(), /^pyodide-0\.29\.5-[0-9a-f]{24}\.snapshot$/);
});

test('off never reads or writes the cache and never asks for a snapshot', async () => {
  const cache = memoryCache();
  cache.blobs.set(await snapshotKey(), bytes(1));
  const store = new SnapshotStore({ mode: 'off', cache, warn: () => assert.fail('nothing to report') });
  const plan = await store.plan('idx/');
  assert.deepEqual(plan, { make: false });
  await store.settle('idx/', plan, started());
  await store.flush();
  assert.deepEqual([...cache.blobs.keys()], [await snapshotKey()]);
});

test('the key follows the shipped Python files: it is theirs, and any change to either makes another', async () => {
  const file = (name: string) => readFileSync(new URL(`../python/${name}`, import.meta.url), 'utf8');
  const python = { bridge: file('armature_bridge.py'), runner: file('armature_runner.py') };
  assert.equal(await snapshotKey(), await snapshotKeyFor(python));
  const keys = new Set([
    await snapshotKeyFor(python),
    await snapshotKeyFor({ ...python, bridge: `${python.bridge}\n` }),
    await snapshotKeyFor({ ...python, runner: python.runner.replace('_MAX_TEXT = 64 << 10', '_MAX_TEXT = 32 << 10') }),
  ]);
  assert.equal(keys.size, 3);
});

test('persist: the first start makes one and writes it; the next process reads it; old keys are removed', async () => {
  const cache = memoryCache();
  cache.blobs.set('pyodide-0.29.4-0123.snapshot', bytes(9));
  cache.blobs.set('unrelated.bin', bytes(8));
  const first = new SnapshotStore({ mode: 'persist', cache });
  const plan = await first.plan('idx/');
  assert.deepEqual(plan, { make: true });
  await first.settle('idx/', plan, started({ snapshot: bytes(2) }));
  await first.flush();
  const key = await snapshotKey();
  assert.deepEqual([...cache.blobs.keys()].sort(), [key, 'unrelated.bin']);
  // Another runtime of this process restores from memory and makes none.
  const again = await new SnapshotStore({ mode: 'persist', cache }).plan('idx/');
  assert.deepEqual(again, { bytes: bytes(2), source: 'memory', make: false });
  // A new process has only the cache; if that snapshot fails, a new one is to be made.
  forgetMemorySnapshots();
  const next = await new SnapshotStore({ mode: 'persist', cache }).plan('idx/');
  assert.deepEqual(next, { bytes: bytes(2), source: 'cache', make: true });
});

test('a cached snapshot that fails to restore is reported once and replaced by the one made instead', async () => {
  const cache = memoryCache();
  const key = await snapshotKey();
  cache.blobs.set(key, bytes(7));
  const warnings: string[] = [];
  const store = new SnapshotStore({ mode: 'persist', cache, warn: (m) => warnings.push(m) });
  const plan = await store.plan('idx/');
  await store.settle('idx/', plan, started({ snapshotError: 'Snapshot has invalid magic number', snapshot: bytes(3) }));
  await store.flush();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /start-up snapshot from the cache could not be restored \(Snapshot has invalid magic number\); Python started without it\. A new snapshot was made\./);
  assert.deepEqual(cache.blobs.get(key), bytes(3));
  // The same trouble again in this process is not reported twice.
  forgetMemorySnapshots();
  const quiet = new SnapshotStore({ mode: 'persist', cache, warn: (m) => warnings.push(m) });
  await quiet.settle('idx/', await quiet.plan('idx/'), started({ snapshotError: 'again' }));
  assert.equal(warnings.length, 2, 'a new process (forgotten memory) reports it again');
});

test('a cached snapshot that fails and cannot be re-made is deleted', async () => {
  const cache = memoryCache();
  const key = await snapshotKey();
  cache.blobs.set(key, bytes(7));
  const store = new SnapshotStore({ mode: 'persist', cache, warn: () => undefined });
  await store.settle('idx/', await store.plan('idx/'), started({ snapshotError: 'broken' }));
  assert.equal(cache.blobs.has(key), false);
});

test('a snapshot made in this process that fails to restore is not offered again here', async () => {
  const store = new SnapshotStore({ mode: 'memory', warn: () => undefined });
  await store.settle('idx/', await store.plan('idx/'), started({ snapshot: bytes(4) }));
  const plan = await store.plan('idx/');
  assert.equal(plan.source, 'memory');
  await store.settle('idx/', plan, started({ snapshotError: 'build id mismatch' }));
  assert.deepEqual(await store.plan('idx/'), { make: false });
});

test('memory mode, or persist without a cache, keeps snapshots for this process only', async () => {
  const cache = memoryCache();
  const store = new SnapshotStore({ mode: 'memory', cache });
  await store.settle('idx/', await store.plan('idx/'), started({ snapshot: bytes(5) }));
  await store.flush();
  assert.equal(cache.blobs.size, 0);
  const other = await new SnapshotStore({ mode: 'persist' }).plan('idx/');
  assert.equal(other.source, 'memory');
  // Snapshots are per Pyodide location.
  assert.deepEqual(await store.plan('other-idx/'), { make: true });
});

test('a cache that cannot be written or read is reported once; Python still starts', async () => {
  const cache = memoryCache();
  cache.put = async () => {
    throw new Error('disk full');
  };
  const warnings: string[] = [];
  const store = new SnapshotStore({ mode: 'persist', cache, warn: (m) => warnings.push(m) });
  await store.settle('idx/', await store.plan('idx/'), started({ snapshot: bytes(6) }));
  await store.flush();
  assert.match(warnings.join('\n'), /could not be kept \(disk full\)/);
  forgetMemorySnapshots();
  cache.get = async () => {
    throw new Error('EACCES');
  };
  const plan = await new SnapshotStore({ mode: 'persist', cache, warn: (m) => warnings.push(m) }).plan('idx/');
  assert.deepEqual(plan, { make: true });
  assert.match(warnings.at(-1)!, /cache could not be read \(EACCES\)/);
});
