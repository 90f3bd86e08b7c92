// execute_python's sync_workspace obeys the persona's allow-list: files come back out of Python only
// as write_file would write them, and deletions only as delete_file would delete them. A persona
// without them gets files in, never out, and the result says so. Booted systems, both isolations.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { WorkspaceApi } from '../../upgrades/workspace/contract.ts';
import { withPersonas } from '../helpers/persona-overlay.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const UPGRADES = ['ToolRunner', 'Workspace', 'PyodideRuntime', 'PythonTool'];
const persona = (id: string, tools: string[]) => ({ id, name: id, description: `Sync test persona ${id}.`, upgrades: UPGRADES, tools, skills: [] });
const PERSONAS = [
  persona('sync-none', ['read_file', 'list_files', 'execute_python']),
  persona('sync-writes', ['read_file', 'list_files', 'write_file', 'execute_python']),
  persona('sync-all', ['read_file', 'list_files', 'write_file', 'delete_file', 'execute_python']),
];

type SyncOut = { count: number; bytes: number; deleted: string[]; skipped: string[]; removed?: string[]; refused?: string[]; failed?: { path: string; error: string }[]; notice?: string };
type Value = { value: unknown; sync: { in?: { count: number }; out?: SyncOut } };

async function start(id: string, isolation: 'process' | 'thread', dataDir = tempDir(`sync-${id}`), workspace: Record<string, unknown> = {}): Promise<{ sys: ArmatureSystem; ws: WorkspaceApi; dataDir: string }> {
  const sys = await boot({
    persona: id,
    dataDir,
    platform: withPersonas(createNodePlatform({ dataDir }), PERSONAS),
    config: { PyodideRuntime: { isolation, snapshot: 'memory' }, Workspace: workspace },
  });
  return { sys, ws: await sys.resolve<WorkspaceApi>('Workspace'), dataDir };
}

async function run(sys: ArmatureSystem, code: string): Promise<Value> {
  const r = await sys.tools.executeTool<Value>('execute_python', { code, sync_workspace: true });
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

describe('a persona without write_file or delete_file gets files in, never out (process isolation)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  before(async () => {
    s = await start('sync-none', 'process');
    await s.ws.write('data.txt', 'workspace data');
  });
  after(() => s.sys.dispose());

  test('write_file itself is refused', async () => {
    const r = await s.sys.tools.executeTool('write_file', { path: 'x', content: 'y' });
    assert.equal(!r.ok && r.error.code, 'TOOL_NOT_ALLOWED');
  });

  test('a file Python writes stays in Python; the result names it and the missing permission', async () => {
    const v = await run(s.sys, "open('/workspace/x', 'w').write('y')\nopen('data.txt').read()");
    assert.equal(v.value, 'workspace data', 'files came in');
    assert.equal(v.sync.in?.count, 1);
    const out = v.sync.out!;
    assert.deepEqual([out.count, out.bytes, out.refused], [0, 0, ['x']]);
    assert.match(out.notice ?? '', /sync-none does not allow write_file/);
    assert.match(out.notice ?? '', /"write_file"/);
    assert.equal(s.ws.stat('x'), undefined);
  });

  test('a file Python changes or deletes is neither changed nor deleted in the workspace', async () => {
    const v = await run(s.sys, "open('data.txt', 'w').write('changed')\nimport os\nos.remove('data.txt')");
    assert.deepEqual(v.sync.out?.deleted, ['data.txt']);
    assert.deepEqual(v.sync.out?.removed ?? [], []);
    assert.match(v.sync.out?.notice ?? '', /does not allow delete_file/);
    assert.equal(s.ws.readText('data.txt'), 'workspace data');
  });

  test('nothing Python wrote reached the disk: a new system over the same data has no such file', async () => {
    await s.sys.dispose();
    s = await start('sync-none', 'process', s.dataDir);
    assert.deepEqual(s.ws.list().map((f) => f.path), ['data.txt']);
  });
});

describe('write_file without delete_file: files go out, deletions stay reported (thread isolation)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  before(async () => {
    s = await start('sync-writes', 'thread');
    await s.ws.write('keep.txt', 'keep me');
  });
  after(() => s.sys.dispose());

  test('new and changed files come out; a deleted one stays, and the result says why', async () => {
    const v = await run(s.sys, "open('new.txt', 'w').write('new')\nimport os\nos.remove('keep.txt')");
    assert.deepEqual([v.sync.out?.count, v.sync.out?.refused ?? []], [1, []]);
    assert.equal(s.ws.readText('new.txt'), 'new');
    assert.deepEqual(v.sync.out?.deleted, ['keep.txt']);
    assert.match(v.sync.out?.notice ?? '', /sync-writes does not allow delete_file/);
    assert.equal(s.ws.readText('keep.txt'), 'keep me');
  });
});

describe('write_file and delete_file: Python\'s changes, deletions included, are synced out (process isolation)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  before(async () => {
    s = await start('sync-all', 'process');
    await s.ws.write('old.txt', 'old');
  });
  after(() => s.sys.dispose());

  test('a file Python deletes is deleted from the workspace', async () => {
    const v = await run(s.sys, "import os\nos.remove('old.txt')\nopen('made.txt', 'w').write('made')");
    assert.deepEqual([v.sync.out?.count, v.sync.out?.deleted, v.sync.out?.removed, v.sync.out?.notice], [1, ['old.txt'], ['old.txt'], undefined]);
    assert.equal(s.ws.stat('old.txt'), undefined);
    assert.equal(s.ws.readText('made.txt'), 'made');
  });
});

describe('files the workspace refuses do not keep the others in Python (thread isolation)', () => {
  let s: Awaited<ReturnType<typeof start>>;
  before(async () => {
    s = await start('sync-all', 'thread', tempDir('sync-quota'), { maxTotalBytes: 1000 });
    await s.ws.write('folder/inside.txt', 'in a folder');
  });
  after(() => s.sys.dispose());

  test('a file past the quota fails alone, with the reason; a folder Python replaced by a file is replaced', async () => {
    const v = await run(s.sys, "import shutil\nshutil.rmtree('folder')\nopen('folder', 'w').write('a file now')\nopen('huge.bin', 'wb').write(b'x' * 5000)\nopen('fine.txt', 'w').write('fine')");
    const out = v.sync.out!;
    assert.equal(s.ws.readText('fine.txt'), 'fine');
    assert.equal(s.ws.readText('folder'), 'a file now');
    assert.deepEqual(out.removed, ['folder/inside.txt']);
    assert.deepEqual(out.failed?.map((f) => f.path), ['huge.bin']);
    assert.match(out.failed?.[0]?.error ?? '', /quota of 1000 bytes/);
    assert.equal(s.ws.stat('huge.bin'), undefined);
  });
});
