// Every built-in upgrade of the default persona reports what its card shows as a status snapshot:
// plain data, small, without secrets, and a fresh one follows each change as module:status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot, checkStatusSnapshot, STATUS_MAX_BYTES, type StatusSnapshot } from '../../src/index.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const SECRET = 'sk-status-secret-0123456789abcdef';

test('each built-in upgrade has a plain, bounded snapshot without secrets, and module:status follows its changes', async () => {
  await using sys = await boot({ dataDir: tempDir('status'), config: { PyodideRuntime: { autoStart: false }, Agent: { env: { OPENAI_API_KEY: SECRET } } } });
  const latest = new Map<string, StatusSnapshot>();
  sys.bus.on('module:status', (p) => latest.set(p.id, p.status));
  const ids = sys.modules.filter((m) => !m.parent).map((m) => m.id);
  assert.deepEqual(ids.filter((id) => sys.modules.find((m) => m.id === id)!.state !== 'loaded'), []);
  for (const id of ids) {
    const s = sys.status(id);
    assert.ok(s, `${id} reports a snapshot`);
    assert.deepEqual(checkStatusSnapshot(id, s), s, `${id}'s snapshot is plain data`);
    assert.ok(new TextEncoder().encode(JSON.stringify(s)).length < STATUS_MAX_BYTES / 4, `${id}'s snapshot is small`);
  }

  const set = await sys.tools.executeTool('save_agent_settings', { model: { provider: 'openai', model: 'gpt-test' } }, { caller: 'ui' });
  assert.ok(set.ok, JSON.stringify(set));
  await until('the Agent snapshot with the new model', () => (latest.get('Agent')?.settings as { model?: { model: string } } | undefined)?.model?.model === 'gpt-test');
  assert.equal((sys.status('Agent')!.settings as { hasKey: boolean }).hasKey, true, 'the snapshot says a key is there');

  await sys.tools.executeTool('write_file', { path: 'notes/a.txt', content: 'hello' });
  await until('the Workspace snapshot with the file', () => latest.get('Workspace')?.totalFiles === 1);
  assert.deepEqual((latest.get('Workspace')!.files as { path: string }[]).map((f) => f.path), ['notes/a.txt']);
  await until('the ToolRunner snapshot counting the calls', () => (latest.get('ToolRunner')?.calls as number) >= 2);
  assert.ok((latest.get('ToolRunner')!.stats as { name: string }[]).some((s) => s.name === 'write_file'));

  const changes = sys.status('Changes')!;
  assert.deepEqual(changes.counts, { pending: 0, active: 0, rejected: 0, 'rolled-back': 0, superseded: 0 });
  assert.equal(changes.safe, false);
  assert.ok((sys.status('Blueprints')!.blueprints as { id: string }[]).some((b) => b.id === '0x000040'));
  assert.equal(sys.status('PyodideRuntime')!.status, 'idle');
  assert.ok((sys.status('PythonTool')!.catalog as { tools: { name: string }[] }).tools.some((t) => t.name === 'execute_python'));
  assert.deepEqual(sys.status('McpClient'), { servers: [], elicitations: [] });
  assert.deepEqual(sys.status('PersonaOverlay'), { overlay: null });
  assert.deepEqual(sys.status('MadeTools'), { tools: [], total: 0 });
  assert.deepEqual(sys.status('MadeUpgrades'), { upgrades: [], total: 0 });

  const everything = JSON.stringify(ids.map((id) => sys.status(id))) + JSON.stringify(sys.bus.history(['module:status']));
  assert.ok(!everything.includes(SECRET), 'no snapshot holds the key');
});
