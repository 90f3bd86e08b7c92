import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '../index.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { localView } from './local-view.ts';

test('the local view shows the system as a person at its page sees it, and calls as ui', async () => {
  await using sys = await boot({ dataDir: tempDir('local-view'), config: { PyodideRuntime: { autoStart: false } } });
  const view = localView(sys);
  assert.deepEqual(view.persona, { id: 'default', name: sys.persona.name, safe: false });
  assert.equal(view.mode, 'page');
  assert.deepEqual(view.processes(), []);
  assert.equal(view.modules(), sys.modules);
  assert.ok(view.modules().every((m) => m.folder), 'every report names its folder');
  assert.equal(view.modules().find((m) => m.id === 'PythonTool')!.folder, 'python-tool');
  const names = view.tools().map((t) => t.name);
  assert.ok(names.includes('approve_change') && names.includes('read_file'), 'a person\'s tools and the persona\'s');
  assert.deepEqual(view.status('Workspace'), sys.status('Workspace'));

  const callers: string[] = [];
  view.events.on('tool:started', (p) => callers.push(`${p.name}:${p.caller}:${p.callId}`));
  const r = await view.callTool<{ items: unknown[] }>('list_changes', {}, { callId: 'mine-1' });
  assert.ok(r.ok && Array.isArray(r.value.items), 'a person-only tool answers the view');
  assert.deepEqual(callers, ['list_changes:ui:mine-1']);
  const bad = await view.callTool('no_such_tool');
  assert.equal(!bad.ok && bad.error.code, 'UNKNOWN_TOOL', 'never throws');

  const seen: string[] = [];
  view.events.on('widget:action', (p) => seen.push(p.action));
  view.emitLocal('widget:action', { module: 'Agent', action: 'send' });
  assert.deepEqual(seen, ['send']);
});
