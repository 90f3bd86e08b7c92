// The default persona, booted for real in Node: files written through the ToolRunner survive a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '../../src/index.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('boot the default persona, write and read files through the ToolRunner, restart with the same data dir', async () => {
  const dataDir = tempDir('boot');
  const first = await boot({ dataDir });
  assert.deepEqual(first.modules.filter((m) => m.state !== 'loaded').map((m) => `${m.id}: ${m.error?.message}`), []);
  const names = first.tools.getToolDeclarations().map((t) => t.name);
  for (const t of ['read_file', 'write_file', 'list_files', 'delete_file', 'list_blueprints', 'read_blueprint']) assert.ok(names.includes(t), `${t} missing`);
  const w = await first.tools.executeTool('write_file', { path: 'notes/today.md', content: '# Plan\n✓ ship' });
  assert.equal(w.ok, true, JSON.stringify(w));
  await first.tools.executeTool('write_file', { path: 'bin/x.dat', content: 'AAEC', encoding: 'base64' });
  const r = await first.tools.executeTool<{ content: string }>('read_file', { path: 'notes/today.md' });
  assert.equal(r.ok && r.value.content, '# Plan\n✓ ship');
  await first.dispose();

  const second = await boot({ dataDir });
  const list = await second.tools.executeTool<{ files: { path: string; size: number }[] }>('list_files', {});
  assert.deepEqual(list.ok && list.value.files.map((f) => [f.path, f.size]), [['bin/x.dat', 3], ['notes/today.md', 15]]);
  const back = await second.tools.executeTool<{ content: string }>('read_file', { path: 'bin/x.dat', encoding: 'base64' });
  assert.equal(back.ok && back.value.content, 'AAEC');
  const bps = await second.tools.executeTool<{ blueprints: { id: string }[] }>('list_blueprints', {});
  assert.ok(bps.ok && bps.value.blueprints.length >= 10);
  const one = await second.tools.executeTool<{ body: string; target: string }>('read_blueprint', { id: '0x000012' });
  assert.equal(one.ok && one.value.target, 'ToolRunner');
  await second.dispose();
});

test('the reader persona sees only its allow-listed tools and cannot write', async () => {
  const sys = await boot({ persona: 'reader', dataDir: tempDir('reader') });
  assert.deepEqual(sys.tools.getToolDeclarations().map((t) => t.name).sort(), ['list_blueprints', 'list_files', 'read_blueprint', 'read_file']);
  const r = await sys.tools.executeTool('write_file', { path: 'a', content: 'b' });
  assert.equal(!r.ok && r.error.code, 'TOOL_NOT_ALLOWED');
  await sys.dispose();
});
