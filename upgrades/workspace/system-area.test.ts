import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { openDirectoryStore } from '../../src/platform/node.ts';
import { createWorkspace, workspaceTools } from './workspace.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';

test('a system area is hidden from the ordinary API and the file tools, and emits no workspace events', async () => {
  const bus = createEventBus();
  const events: string[] = [];
  bus.onAny((r) => events.push(r.type));
  const ws = await createWorkspace({ store: memoryStore(), bus });
  await ws.write('notes.txt', 'visible');
  events.length = 0;
  const runs = ws.area('runs');
  const written = await runs.write('r1.jsonl', '{"a":1}\n');
  assert.deepEqual([written.path, written.size], ['r1.jsonl', 8]);
  assert.deepEqual(events, []);
  assert.deepEqual(ws.list().map((f) => f.path), ['notes.txt']);
  assert.equal(runs.readText('r1.jsonl'), '{"a":1}\n');
  assert.deepEqual(runs.list().map((f) => f.path), ['r1.jsonl']);
  // Quota accounting sees everything that is stored.
  assert.equal(ws.totalBytes(), 7 + 8);

  const tools = workspaceTools(ws);
  const reserved = (e: { code: string; message: string }) => e.code === 'INVALID_PATH' && /"\.armature\/" is reserved/.test(e.message);
  await assert.rejects(tools.read_file({ path: '.armature/runs/r1.jsonl' }), reserved);
  await assert.rejects(tools.write_file({ path: '.armature/runs/r1.jsonl', content: 'forged' }), reserved);
  await assert.rejects(tools.delete_file({ path: './x/../.armature/runs/r1.jsonl' }), reserved);
  await assert.rejects(tools.list_files({ prefix: '.armature' }), reserved);
  assert.throws(() => ws.stat('.armature/runs/r1.jsonl'), reserved);
  assert.equal(runs.readText('r1.jsonl'), '{"a":1}\n');
});

test('appends to one file never lose a line, and areas survive reopening the store', async () => {
  const dir = tempDir('system-area');
  const ws = await createWorkspace({ store: await openDirectoryStore(dir), bus: createEventBus() });
  const area = ws.area('runs');
  await Promise.all(Array.from({ length: 25 }, (_, i) => area.append('log.jsonl', `${JSON.stringify({ i })}\n`)));
  const again = await createWorkspace({ store: await openDirectoryStore(dir), bus: createEventBus() });
  const lines = again.area('runs').readText('log.jsonl')!.trim().split('\n').map((l) => JSON.parse(l).i);
  assert.deepEqual(lines, Array.from({ length: 25 }, (_, i) => i));
  assert.deepEqual(again.list(), []);
  assert.equal(await again.area('runs').delete('log.jsonl'), true);
  assert.equal(again.area('runs').read('log.jsonl'), undefined);
});

test('area names and paths are checked', async () => {
  const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus() });
  assert.throws(() => ws.area('../up'), (e: { code: string; message: string }) => e.code === 'INVALID_AREA' && /"\.\.\/up"/.test(e.message));
  await assert.rejects(ws.area('runs').write('../../escape', 'x'), (e: { code: string }) => e.code === 'INVALID_PATH');
});
