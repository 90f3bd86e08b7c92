import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { areaStorage, memoryStorage, STORAGE_LIMITS, UPGRADE_DATA_AREA } from './storage.ts';

test('an upgrade\'s storage is its own folder of the hidden area; paths cannot leave it', async () => {
  const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus() });
  const area = ws.area(UPGRADE_DATA_AREA);
  const mine = areaStorage('notes-index', area);
  const other = areaStorage('notes-report', area);
  assert.deepEqual(await mine.write('daily/1.json', '{"n":1}'), { path: 'daily/1.json', size: 7 });
  await mine.write('counts.json', '{}');
  await other.write('counts.json', 'theirs');
  assert.equal(mine.read('counts.json'), '{}');
  assert.equal(mine.read('missing.json'), null);
  assert.deepEqual(mine.list().map((f) => f.path), ['counts.json', 'daily/1.json']);
  assert.deepEqual(mine.list('daily').map((f) => f.path), ['daily/1.json']);
  assert.equal(await mine.delete('counts.json'), true);
  assert.equal(other.read('counts.json'), 'theirs');
  assert.deepEqual(ws.list(), [], 'invisible to the file tools');
  for (const bad of ['../notes-report/counts.json', '/etc/passwd', 'a/../../x', 'a\\b', '', 'a//b', './x', 5]) {
    await assert.rejects(Promise.resolve().then(() => mine.write(bad, 'x')), /INVALID_PATH|invalid path/, String(bad));
  }
  await assert.rejects(mine.write('x.json', { not: 'text' }), /takes text/);
  await assert.rejects(mine.write('big.txt', 'x'.repeat(STORAGE_LIMITS.fileChars + 1)), /STORAGE_FULL|at most/);
});

test('a version under test stores in memory only', async () => {
  const s = memoryStorage('notes-index');
  await s.write('a/b.json', '1');
  assert.equal(s.read('a/b.json'), '1');
  assert.deepEqual(s.list('a').map((f) => f.path), ['a/b.json']);
  assert.equal(await s.delete('a/b.json'), true);
  assert.deepEqual(s.list(), []);
});
