// Agent-made upgrades end to end in Node, everything real (Pyodide in its worker, the upgrade in a
// confined child process, the workspace on disk): through the agent's scripted model an agent reads
// a blueprint and writes the notes index's (from Python), builds the upgrade with its tests and adds
// it to its persona (native tools); the upgrade works as a tool and from Python, follows the workspace, survives a new boot,
// is skipped (and reported) when its stored version is damaged, and is left out by safe mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import type { BlueprintSummary } from '../../upgrades/blueprints/contract.ts';
import type { MadeUpgradesApi, UpgradeChangeAnswer } from '../../upgrades/made-upgrades/index.ts';
import { notesIndexScript } from '../helpers/made-upgrade-fixtures.ts';
import { makerPersona, withPersonas } from '../helpers/persona-overlay.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { value } from '../helpers/tool-value.ts';

const data = tempDir('made-upgrades');
/** A persona whose agent may change tools, blueprints, upgrades and its persona without approval. */
const BUILDER = { ...makerPersona(['*'], 'builder'), selfModification: { tools: 'auto', upgrades: 'auto', blueprints: 'auto', persona: 'auto' } };
const bootBuilder = (safe = false) =>
  boot({ persona: 'builder', safe, platform: withPersonas(createNodePlatform({ dataDir: data }), [BUILDER]), historySize: 20_000, config: { MadeUpgrades: { testTimeoutMs: 3000 } } });

let sys: ArmatureSystem;
let server: ScriptedModelServer;

const call = <T = unknown>(name: string, args: unknown, caller = 'agent') => sys.tools.executeTool<T>(name, args, { caller });
const python = (code: string) => call<{ value: unknown; stdout: string }>('execute_python', { code });
/** Resolves once `check` holds (the upgrade hears events asynchronously, in its own process). */
async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting until ${what}`);
}

before(async () => {
  sys = await bootBuilder();
  server = await startScriptedModelServer();
  for (const [path, content] of [['notes/plan.md', '# Plan'], ['notes/ideas.md', '- more'], ['data/numbers.txt', '1 2 3'], ['todo.md', 'x']]) value(await call('write_file', { path, content }));
});
after(async () => {
  await sys?.dispose();
  await server?.close();
});

test('through the agent\'s scripted model: it reads a blueprint, writes one, builds the upgrade with its tests and adds it to its persona', async () => {
  server.model.setScript(notesIndexScript());
  const agent = await sys.resolve<AgentApi>('Agent');
  const run = await agent.run({ goal: 'Keep a count of my notes by folder, as an upgrade of your own.', model: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL } });
  assert.equal(run.reason, 'answered', JSON.stringify(run.error ?? run.toolCalls.map((c) => c.result)));
  assert.deepEqual(run.toolCalls.map((c) => c.name), ['execute_python', 'create_upgrade', 'update_persona']);

  // The blueprint, written from Python after reading the workspace's: id from the agents' range, beside the project's.
  const py = run.toolCalls[0]!.result as { ok: boolean; value: { value: { id: string; status: string }; stdout: string } };
  assert.equal(py.value.value.status, 'active', JSON.stringify(py));
  assert.equal(py.value.value.id, '0xA00001');
  assert.match(py.value.stdout, /Workspace -> 0xA00001 active/);
  const blueprints = value(await call<{ blueprints: BlueprintSummary[] }>('list_blueprints', {})).blueprints;
  assert.deepEqual(blueprints.filter((b) => b.origin === 'agent').map((b) => [b.id, b.target, b.version]), [['0xA00001', 'notes-index', 1]]);
  assert.ok(blueprints.some((b) => b.id === '0x000014' && b.origin === 'project'));

  // The upgrade: its checklist's four tests passed in its worker; in force.
  const made = (run.toolCalls[1]!.result as { value: UpgradeChangeAnswer }).value;
  assert.equal(made.status, 'active', JSON.stringify(made));
  assert.deepEqual(made.tests.map((t) => [t.name, t.ok]), [['folder-of-nested', true], ['folder-of-root', true], ['summary-shape', true], ['bad-folder', true]]);
  assert.match(made.hint!, /update_persona/);
  // The gate proved the blueprint's checklist: read back, its items are ticked.
  const proven = value(await call<{ body: string }>('read_blueprint', { id: '0xA00001' })).body;
  assert.deepEqual(proven.match(/^- \[[ x]\] .*$/gm)!.map((l) => l.slice(0, 5)), ['- [x]', '- [x]', '- [x]', '- [x]']);
  // The persona overlay makes it run: a module of its own, with its widget.
  const part = sys.modules.find((m) => m.id === 'upgrade:notes-index')!;
  assert.deepEqual([part.state, part.parent, part.version, part.widget, part.title, part.category], ['loaded', 'MadeUpgrades', 'v1', 'made-upgrade-widget', 'Notes index', 'knowledge']);
  assert.ok(sys.persona.tools.includes('notes_index.*'));
  // Every step is a change on the one path, made by this run.
  const changes = await sys.resolve<ChangesApi>('Changes');
  assert.deepEqual(changes.list().slice(0, 3).map((r) => [r.kind, r.target, r.status, r.caller.run === run.runId]).reverse(), [
    ['blueprint', '0xA00001', 'active', true],
    ['upgrade', 'notes-index', 'active', true],
    ['persona', 'builder', 'active', true],
  ]);
});

test('its tool works as a tool (the CLI\'s way) and from Python; its widget and event follow the workspace', async () => {
  assert.deepEqual(value(await call('notes_index.notes_summary', {}, 'cli')), { total: 4, folders: { '(root)': 1, data: 1, notes: 2 } });
  assert.deepEqual(value(await call('notes_index.notes_summary', { folder: 'notes' }, 'cli')), { folder: 'notes', files: 2 });
  assert.equal((await call('notes_index.notes_summary', { folder: 3 })).ok, false);
  const r = value(await python('from tools.notes_index import notes_summary, folder_of\n[notes_summary()["total"], folder_of(path="notes/x/y.md")]'));
  assert.deepEqual(r.value, [4, 'notes']);

  const api = await sys.resolve<MadeUpgradesApi>('MadeUpgrades');
  assert.deepEqual([api.status('notes-index')!.primary, api.status('notes-index')!.table!.rows[0]], ['4 files', ['notes', 2]]);
  const counted = new Promise<unknown>((resolve) => sys.bus.onDeclared('notes-index:counted', (p) => resolve(p)));
  value(await call('write_file', { path: 'notes/new.md', content: 'fresh' }));
  assert.deepEqual(await counted, { folder: 'notes', files: 3 });
  await eventually('the widget shows the new file', () => api.status('notes-index')!.primary === '5 files');
  assert.deepEqual(api.status('notes-index')!.log.map((l) => l.text), ['indexed 4 files', '+ notes/new.md']);
  value(await call('delete_file', { path: 'todo.md' }));
  await eventually('the widget shows the deletion', () => api.status('notes-index')!.primary === '4 files');
  // Its widget's button calls its tool as the person.
  const pressed = await api.press('notes-index', 0);
  assert.deepEqual(value(pressed), { total: 4, folders: { data: 1, notes: 3 } });
  assert.ok(sys.bus.history(['tool:finished']).some((e) => e.payload.name === 'notes_index.notes_summary' && e.payload.caller === 'ui'));
  // Its storage is its own: in the workspace's hidden area, not among the files.
  assert.ok(!value(await call<{ files: { path: string }[] }>('list_files', {})).files.some((f) => f.path.includes('counts')));
});

test('a new boot (a new process\'s worth of state) brings back the blueprint, the upgrade and the overlay', async () => {
  await sys.dispose();
  sys = await bootBuilder();
  const part = sys.modules.find((m) => m.id === 'upgrade:notes-index')!;
  assert.equal(part.state, 'loaded', JSON.stringify(part));
  assert.deepEqual(value(await call('notes_index.notes_summary', {}, 'cli')), { total: 4, folders: { data: 1, notes: 3 } });
  assert.equal(value(await call<{ origin: string }>('read_blueprint', { id: '0xA00001' })).origin, 'agent');
  const api = await sys.resolve<MadeUpgradesApi>('MadeUpgrades');
  assert.deepEqual(api.live().map((u) => [u.id, u.version, u.running]), [['notes-index', 1, true]]);
});

test('safe mode boots only what the persona file names and lists the agent-made changes for review', async () => {
  const normal = sys;
  sys = await bootBuilder(true);
  try {
    assert.equal(sys.safe, true);
    assert.equal(sys.modules.some((m) => m.id === 'upgrade:notes-index'), false);
    assert.equal((await call('notes_index.notes_summary', {})).ok, false);
    assert.ok(!sys.persona.tools.includes('notes_index.*'), 'no overlay');
    assert.equal(sys.modules.every((m) => m.state === 'loaded'), true);
    const changes = await sys.resolve<ChangesApi>('Changes');
    assert.deepEqual(changes.list({ status: 'active' }).map((r) => `${r.kind} ${r.target}`).sort(), ['blueprint 0xA00001', 'persona builder', 'upgrade notes-index']);
    // Blueprints written by agents are not loaded either.
    assert.equal((await call('read_blueprint', { id: '0xA00001' })).ok, false);
  } finally {
    await sys.dispose();
    sys = normal;
  }
});

test('a stored upgrade that fails at boot is skipped and reported; the rest boots', async () => {
  const changes = await sys.resolve<ChangesApi>('Changes');
  const inForce = changes.active('upgrade', 'notes-index')!;
  await sys.dispose();
  const file = join(data, 'changes', 'blobs', `${inForce.hash}.json`);
  const original = readFileSync(file, 'utf8');
  writeFileSync(file, original.replace('indexed', 'tampered'));
  try {
    sys = await bootBuilder();
    const part = sys.modules.find((m) => m.id === 'upgrade:notes-index')!;
    assert.equal(part.state, 'failed');
    assert.match(part.error!.message, /could not be loaded and was skipped/);
    assert.deepEqual(sys.bus.history(['change:load-failed']).map((e) => [e.payload.change.target, e.payload.error.code]), [['notes-index', 'VERSION_CORRUPTED']]);
    assert.ok(sys.modules.filter((m) => !m.parent).every((m) => m.state === 'loaded'), 'the boot went on');
    assert.equal(value(await call<{ origin: string }>('read_blueprint', { id: '0xA00001' })).origin, 'agent');
  } finally {
    await sys.dispose();
    writeFileSync(file, original);
    sys = await bootBuilder();
  }
  assert.equal(sys.modules.find((m) => m.id === 'upgrade:notes-index')!.state, 'loaded');
});
