import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { createNodePlatform } from './node.ts';
import { openDirectoryCache } from './node-cache.ts';

test('the Node platform keeps caches under <dataDir>/cache/<name>/ and touches nothing before a put', async () => {
  const dataDir = tempDir('cache-data');
  const cache = createNodePlatform({ dataDir }).openCache('pyodide-snapshot');
  assert.equal(cache.folder, join(dataDir, 'cache', 'pyodide-snapshot'));
  assert.equal(await cache.get('a.bin'), undefined);
  assert.deepEqual(await cache.keys(), []);
  assert.equal(existsSync(join(dataDir, 'cache')), false, 'reading an empty cache creates nothing');
  await cache.put('a.bin', new Uint8Array([1, 2, 3]));
  assert.deepEqual(readdirSync(join(dataDir, 'cache', 'pyodide-snapshot')), ['a.bin']);
});

test('a directory cache stores, replaces, lists and deletes blobs, and leaves no temporary files', async () => {
  const dir = join(tempDir('cache'), 'blobs');
  const cache = openDirectoryCache(dir);
  const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
  await cache.put('big-1', big);
  await cache.put('small', new Uint8Array([7]));
  await cache.put('small', new Uint8Array([8, 9]));
  assert.deepEqual(await cache.get('big-1'), big);
  assert.deepEqual(await cache.get('small'), new Uint8Array([8, 9]));
  // A temporary file left by a crash mid-write is not a blob.
  writeFileSync(join(dir, 'small.armature-tmp-1-abc'), 'torn');
  assert.deepEqual(await cache.keys(), ['big-1', 'small']);
  await cache.delete('big-1');
  await cache.delete('never-there');
  assert.deepEqual(await cache.keys(), ['small']);
  assert.equal(await cache.get('big-1'), undefined);
});

test('cache keys that could escape the folder are refused, naming the key', async () => {
  const cache = openDirectoryCache(join(tempDir('cache-keys'), 'c'));
  for (const key of ['../x', 'a/b', '', '.hidden', 'a b']) {
    await assert.rejects(cache.put(key, new Uint8Array([1])), new RegExp(`invalid key ${JSON.stringify(JSON.stringify(key)).slice(1, -1).replace(/[.]/g, '\\.')}`));
  }
});

test('a temporary file whose writer was killed is removed when the keys are listed; a live writer\'s stays', async () => {
  const dir = join(tempDir('cache-orphans'), 'blobs');
  const cache = openDirectoryCache(dir);
  await cache.put('snap', new Uint8Array([1]));
  const dead = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) + 1;
  writeFileSync(join(dir, `snap.armature-tmp-${dead}-k3`), 'x'.repeat(1 << 20));
  writeFileSync(join(dir, `snap.armature-tmp-${process.pid}-live`), 'being written');
  assert.deepEqual(await cache.keys(), ['snap']);
  assert.deepEqual(readdirSync(dir).sort(), ['snap', `snap.armature-tmp-${process.pid}-live`]);
});
