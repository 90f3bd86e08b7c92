// The default persona, booted for real in Node: files written through the ToolRunner survive a restart.
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { boot, type BootConfig } from '../../src/index.ts';
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

test('the reader persona sees only its allow-listed tools and cannot write; `await using` disposes the system', async () => {
  const disposed: string[] = [];
  {
    await using sys = await boot({ persona: 'reader', dataDir: tempDir('reader') });
    sys.bus.on('module:disposed', (p) => disposed.push(p.id));
    assert.deepEqual(sys.tools.getToolDeclarations().map((t) => t.name).sort(), ['list_blueprints', 'list_files', 'read_blueprint', 'read_file']);
    const r = await sys.tools.executeTool('write_file', { path: 'a', content: 'b' });
    assert.equal(!r.ok && r.error.code, 'TOOL_NOT_ALLOWED');
    assert.equal(disposed.length, 0, "nothing is disposed inside the block");
  }
  assert.ok(disposed.includes('ToolRunner') && disposed.includes('Workspace'), disposed.join());
});

test('a call to a tool whose module failed to load says which module and why, not "no tool named"', async () => {
  const dir = tempDir('boot-failed');
  const dataDir = `${dir}/not-a-folder`;
  writeFileSync(dataDir, 'a file');
  const sys = await boot({ dataDir, config: { PyodideRuntime: { autoStart: false } } });
  try {
    const own = await sys.tools.executeTool('list_files', {});
    assert.equal(!own.ok && own.error.code, 'TOOL_UNAVAILABLE');
    assert.match(!own.ok ? own.error.message : '', /list_files is unavailable: its module Workspace failed to load \(MODULE_INIT_FAILED: .*ENOTDIR/);
    assert.deepEqual(!own.ok && own.error.details, { name: 'list_files', module: 'Workspace' });
    assert.match(!own.ok ? own.hint ?? '' : '', /comes back when Workspace loads/);
    // A module that failed because of another names that one.
    const dependent = await sys.tools.executeTool('list_tools_made', {});
    assert.match(!dependent.ok ? dependent.error.message : '', /list_tools_made is unavailable: its module MadeTools failed to load \(because Workspace failed\)/);
    // Names no module declares are still unknown, with suggestions from the tools that are there.
    const unknown = await sys.tools.executeTool('list_filez', {});
    assert.equal(!unknown.ok && unknown.error.code, 'UNKNOWN_TOOL');
  } finally {
    await sys.dispose();
  }
});

test("the ToolRunner's options are read like every upgrade's: an unusable defaultTimeoutMs fails it, naming the value", async () => {
  // A value the types refuse, as a config read from JSON can still hold: boot refuses it too.
  await using sys = await boot({ persona: 'reader', dataDir: tempDir('runner-config'), config: { ToolRunner: { defaultTimeoutMs: 'soon' } } as unknown as BootConfig });
  const runner = sys.modules.find((m) => m.id === 'ToolRunner');
  assert.equal(runner?.state, 'failed');
  assert.match(runner?.error?.message ?? '', /\[config\] ToolRunner: option defaultTimeoutMs "soon" is not usable/);
});
