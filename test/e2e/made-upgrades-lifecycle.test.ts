// The life of an agent-made upgrade in Node, driven by direct tool calls: a broken update is
// rejected while the version in force keeps running; an update swaps in hot with calls in flight
// finishing on the old version; rollback restores the earlier one live; what depends on it reloads
// in order; a checklist item no test proves is rejected; an upgrade that tries the DOM, IndexedDB,
// the network or Node built-ins gets errors and changes nothing outside its folder; nothing leaks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { MadeUpgradesApi, UpgradeChangeAnswer } from '../../upgrades/made-upgrades/index.ts';
import type { WorkspaceApi } from '../../upgrades/workspace/contract.ts';
import { BROKEN_INIT_CODE, MARKDOWN_ONLY_CODE, NOTES_INDEX_BLUEPRINT, notesIndexUpgrade } from '../helpers/made-upgrade-fixtures.ts';
import { makerPersona, withPersonas } from '../helpers/persona-overlay.ts';
import { startProbe } from '../helpers/probe-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { escapeAttempts } from '../helpers/escape-attempts.ts';
import { value } from '../helpers/tool-value.ts';

const data = tempDir('made-upgrades-life');
const BUILDER = { ...makerPersona(['*'], 'builder'), selfModification: { tools: 'auto', upgrades: 'auto', blueprints: 'auto', persona: 'auto' } };
let sys: ArmatureSystem;
let api: MadeUpgradesApi;

const call = <T = unknown>(name: string, args: unknown, caller = 'agent') => sys.tools.executeTool<T>(name, args, { caller });
const change = async (tool: string, args: unknown) => value(await call<UpgradeChangeAnswer>(tool, args));

/** A blueprint for upgrade `target` whose checklist names `tests`; resolves to its id. */
async function blueprintFor(target: string, tests: string[], prerequisites: string[] = []): Promise<string> {
  const body = `## Objective\n${target}.\n## Design\nSmall.\n## Verification\n${tests.map((t) => `- [ ] works (test: ${t})`).join('\n')}\n`;
  const r = value(await call<{ id: string; status: string }>('create_blueprint', { title: target, target, prerequisites, body }));
  assert.equal(r.status, 'active', JSON.stringify(r));
  return r.id;
}

/** An upgrade with one tool `tool` whose body is `body` (args in `args`, ctx in `ctx`). */
function oneTool(id: string, blueprint: string, body: string, tests: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return {
    id,
    blueprint,
    code: `export default {\n  async init(ctx) {},\n  tools: { async tool(args, ctx) { ${body} } },\n};\n`,
    tools: [{ name: 'tool', description: `${id}'s tool.`, inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } } }],
    tests,
    ...extra,
  };
}

/** Resources that must come back to where they were: bus listeners, upgrade workers, timers, child processes. */
function resources() {
  const active = process.getActiveResourcesInfo();
  return { listeners: sys.bus.listenerCount(), ...api.resources(), timers: active.filter((r) => r === 'Timeout').length, processes: active.filter((r) => r === 'ProcessWrap').length };
}

before(async () => {
  sys = await boot({
    persona: 'builder',
    platform: withPersonas(createNodePlatform({ dataDir: data }), [BUILDER]),
    historySize: 20_000,
    config: { MadeUpgrades: { testTimeoutMs: 3000, drainTimeoutMs: 1500 }, PyodideRuntime: { autoStart: false } },
  });
  api = await sys.resolve<MadeUpgradesApi>('MadeUpgrades');
  for (const path of ['notes/a.md', 'notes/b.txt', 'todo.md']) value(await call('write_file', { path, content: path }));
  const bp = value(await call<{ id: string }>('create_blueprint', NOTES_INDEX_BLUEPRINT));
  assert.equal((await change('create_upgrade', notesIndexUpgrade(bp.id))).status, 'active');
  value(await call('update_persona', { add_upgrades: ['notes-index'] }));
});
after(() => sys?.dispose());

test('update_upgrade with a broken init is rejected with the report; the version in force keeps running, untouched', async () => {
  const before = resources();
  assert.equal(before.workers, 1, 'the version in force has its worker, counted');
  const status = api.status('notes-index');
  const r = await change('update_upgrade', { id: 'notes-index', code: BROKEN_INIT_CODE, reason: 'read the index from a file' });
  assert.equal(r.status, 'rejected');
  assert.match(r.report!, /init\(ctx\) failed: Error: the index file is corrupt/);
  assert.match(r.hint!, /Version 1 stays in force/);
  assert.equal(api.status('notes-index'), status, 'the same instance runs');
  assert.deepEqual(value(await call('notes_index.notes_summary', {})), { total: 3, folders: { '(root)': 1, notes: 2 } });
  assert.deepEqual(resources(), before, 'the gate\'s worker is gone');
});

test('update_upgrade swaps v2 in hot, rollback_upgrade brings v1 back live; nothing leaks', async () => {
  const before = resources();
  const v2 = await change('update_upgrade', { id: 'notes-index', code: MARKDOWN_ONLY_CODE, reason: 'count notes only' });
  assert.equal(v2.status, 'active', JSON.stringify(v2));
  assert.equal(v2.version, 3, 'the broken version was 2');
  assert.deepEqual(value(await call('notes_index.notes_summary', {})), { total: 2, folders: { '(root)': 1, notes: 1 } });
  assert.equal(sys.modules.find((m) => m.id === 'upgrade:notes-index')!.version, 'v3');
  assert.equal(api.status('notes-index')!.log[0]!.text, 'indexed 2 files', 'a new widget state');
  const back = await change('rollback_upgrade', { id: 'notes-index', version: 1, reason: 'count every file again' });
  assert.equal(back.status, 'active', JSON.stringify(back));
  assert.deepEqual(value(await call('notes_index.notes_summary', {})), { total: 3, folders: { '(root)': 1, notes: 2 } });
  const history = value(await call<{ versions: { version: number; status: string; action: string }[] }>('upgrade_history', { id: 'notes-index' }));
  assert.deepEqual(history.versions.map((v) => [v.action, v.version, v.status]), [['create', 1, 'superseded'], ['update', 2, 'rejected'], ['update', 3, 'rolled-back'], ['rollback', 1, 'active']]);
  assert.deepEqual(resources(), before, 'listeners, workers, subscriptions, timers and processes as before');
});

test('calls in flight finish on the old version, or fail with a clear error past the drain limit', async () => {
  const bp = await blueprintFor('slow-echo', ['answers']);
  const version = (tag: string) => oneTool('slow-echo', bp, `await new Promise((r) => setTimeout(r, args.ms ?? 0)); return '${tag}';`, [{ name: 'answers', tool: 'tool', args: {}, expect: tag }]);
  assert.equal((await change('create_upgrade', version('v1'))).status, 'active');
  value(await call('update_persona', { add_upgrades: ['slow-echo'] }));
  const finishes = call('slow_echo.tool', { ms: 700 });
  const tooLong = call('slow_echo.tool', { ms: 5000 });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await change('update_upgrade', version('v2'))).status, 'active');
  assert.equal(value(await finishes), 'v1', 'finished on the version it started on');
  const cut = await tooLong;
  assert.equal(cut.ok, false);
  assert.ok(!cut.ok && cut.error.code === 'UPGRADE_REPLACED', JSON.stringify(cut));
  assert.match(!cut.ok ? cut.error.message : '', /slow-echo v1 stopped \(it was replaced, retired or reloaded\) while this call ran/);
  assert.equal(value(await call('slow_echo.tool', {})), 'v2');
});

test('what depends on an upgrade reloads after it, in order; retiring it stops them', async () => {
  const bp = await blueprintFor('notes-report', ['reports'], ['0xA00001']);
  const report = oneTool('notes-report', bp, "const s = await ctx.call_tool('notes_index.notes_summary', {}); return 'files: ' + s.total;", [{ name: 'reports', tool: 'tool', args: {} }], { dependencies: ['notes-index'] });
  assert.equal((await change('create_upgrade', report)).status, 'active');
  value(await call('update_persona', { add_upgrades: ['notes-report'] }));
  assert.equal(value(await call('notes_report.tool', {})), 'files: 3');
  const seen = sys.bus.history().length;
  assert.equal((await change('update_upgrade', { id: 'notes-index', code: MARKDOWN_ONLY_CODE })).status, 'active');
  const loaded = sys.bus.history(['module:loaded']).filter((e) => e.seq > seen && e.payload.parent === 'MadeUpgrades').map((e) => e.payload.id);
  assert.deepEqual(loaded, ['upgrade:notes-index', 'upgrade:notes-report']);
  assert.equal(value(await call('notes_report.tool', {})), 'files: 2');
  const retired = value(await call<{ status: string }>('retire_upgrade', { id: 'notes-index', reason: 'done' }));
  assert.equal(retired.status, 'retired');
  const part = sys.modules.find((m) => m.id === 'upgrade:notes-report')!;
  assert.equal(part.state, 'failed');
  assert.match(part.error!.message, /depends on notes-index/);
  assert.equal((await call('notes_report.tool', {})).ok, false);
  assert.equal(sys.modules.some((m) => m.id === 'upgrade:notes-index'), false);
  const back = await change('rollback_upgrade', { id: 'notes-index', version: 1 });
  assert.equal(back.status, 'active');
  assert.equal(value(await call('notes_report.tool', {})), 'files: 3', 'it came back with what it depends on');
});

test('a checklist item no test proves, or a test that fails, rejects the upgrade with the report', async () => {
  const bp = await blueprintFor('unproven', ['answers', 'counts-deleted']);
  const r = await change('create_upgrade', oneTool('unproven', bp, "return 'ok';", [{ name: 'answers', tool: 'tool', args: {}, expect: 'ok' }]));
  assert.equal(r.status, 'rejected');
  assert.match(r.report!, /checklist item "works \(test: counts-deleted\)" names test "counts-deleted", which unproven does not have \(its tests: answers\)/);
  const failing = await change('create_upgrade', oneTool('unproven', bp, "return 'no';", [{ name: 'answers', tool: 'tool', args: {}, expect: 'ok' }, { name: 'counts-deleted', tool: 'tool', args: {} }]));
  assert.equal(failing.status, 'rejected');
  assert.match(failing.report!, /1 of 2 tests failed/);
  const wrongTarget = await change('create_upgrade', oneTool('other-id', bp, "return 'ok';", [{ name: 'answers', tool: 'tool', args: {} }]));
  assert.match(wrongTarget.report!, /blueprint 0xA0000\d targets "unproven", not other-id/);
  const mismatch = await change('create_upgrade', { ...oneTool('unproven', bp, "return 'ok';", [{ name: 'answers', tool: 'tool', args: {} }, { name: 'counts-deleted', tool: 'tool', args: {} }]), tools: [{ name: 'tool', description: 'x', inputSchema: { type: 'object' } }, { name: 'extra', description: 'y', inputSchema: { type: 'object' } }] });
  assert.match(mismatch.report!, /declared in tools but not implemented by unproven: extra/);
  assert.equal(sys.modules.some((m) => m.id === 'upgrade:unproven'), false);
});

test('an upgrade that tries the DOM, IndexedDB, the network or Node built-ins gets errors; nothing changes outside its folder', async () => {
  const probe = await startProbe();
  const { origin, hits } = probe;
  const marker = join(tempDir('upgrade-escape'), 'escaped.txt');
  const workspace = await sys.resolve<WorkspaceApi>('Workspace');
  const changesBefore = workspace.area('changes').list().map((f) => f.path).sort();
  try {
    const attempts: Record<string, [string, string]> = {
      ...escapeAttempts('node', origin, marker),
      outside_folder: ["return ctx.storage_write('../changes/lineage/evil.jsonl', 'x');", 'INVALID_PATH'],
      own_folder: ["await ctx.storage_write('inside.txt', 'mine'); return ctx.storage_read('inside.txt');", ''],
    };
    const bp = await blueprintFor('escape-artist', Object.keys(attempts));
    const code = `export default {\n  init(ctx) {},\n  tools: {\n${Object.entries(attempts).map(([n, [body]]) => `    async ${n}(args, ctx) { ${body} },`).join('\n')}\n  },\n};\n`;
    const tools = Object.keys(attempts).map((name) => ({ name, description: `Tries ${name}.`, inputSchema: { type: 'object' } }));
    const tests = Object.entries(attempts).map(([name, [, error]]) => (error ? { name, tool: name, args: {}, expect_error: error } : { name, tool: name, args: {}, expect: 'mine' }));
    const made = await change('create_upgrade', { id: 'escape-artist', blueprint: bp, code, tools, tests });
    assert.equal(made.status, 'active', JSON.stringify(made.tests));
    value(await call('update_persona', { add_upgrades: ['escape-artist'] }));
    for (const [name, [, error]] of Object.entries(attempts)) {
      const r = await call(`escape_artist.${name}`, {});
      if (!error) assert.equal(value(r), 'mine');
      else assert.ok(!r.ok && `${r.error.code} ${r.error.message}`.includes(error), `${name}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual(hits, [], 'no request reached the server');
    assert.equal(existsSync(marker), false, 'no file was written');
    assert.deepEqual(workspace.area('upgrade-data').list('escape-artist').map((f) => f.path), ['escape-artist/inside.txt']);
    const changesAfter = workspace.area('changes').list().map((f) => f.path).sort();
    assert.ok(!changesAfter.some((p) => p.includes('evil')) && changesBefore.every((p) => changesAfter.includes(p)));
  } finally {
    await probe.close();
  }
});

test('an agent cannot approve, and its overlay adds only what agents made', async () => {
  const changes = await sys.resolve<ChangesApi>('Changes');
  const overlay = value(await call<{ status: string; report: string }>('update_persona', { add_tools: ['delete_file', 'notes_summary', 'NotesIndex.*'], add_upgrades: ['Workspace', 'NotesIndex'] }));
  assert.equal(overlay.status, 'rejected');
  assert.match(overlay.report, /"delete_file" is not a tool agents made: tools agents made are named <namespace>\.<tool>/);
  assert.match(overlay.report, /"Workspace" is not an agent-made upgrade: agent-made upgrade ids are kebab-case.*PascalCase.*Built-in upgrades are chosen by the persona file in modules\//);
  // The names the system made, suggested: the upgrade's kebab-case id, its tool's namespaced name.
  assert.match(overlay.report, /"NotesIndex" is not an agent-made upgrade; did you mean "notes-index"\?/);
  assert.match(overlay.report, /"notes_summary" is not a tool agents made; did you mean "notes_index\.notes_summary"\?/);
  assert.match(overlay.report, /"NotesIndex\.\*" is not a tool agents made; did you mean "notes_index\.\*"\?/);
  const notATool = await call('update_tool', { name: 'notes_summary', code: 'x' });
  assert.ok(!notATool.ok && /notes_index\.notes_summary is a tool of an agent-made upgrade: change it with update_upgrade/.test(notATool.hint ?? ''), JSON.stringify(notATool));
  // Through the ToolRunner, as a model sends it: the rule and the id to write, not a bare pattern.
  const pascal = value(await call<{ status: string; report: string }>('create_blueprint', { title: 'Call counter', target: 'CallCounter', body: '## Objective\nx\n## Design\ny\n## Verification\n- [ ] counts (test: counts)\n' }));
  assert.equal(pascal.status, 'rejected');
  assert.match(pascal.report, /target "CallCounter" is not an agent-made upgrade id; write it as "call-counter": agent-made upgrade ids are kebab-case.*so they never collide with the built-in upgrades, whose ids are PascalCase/);
  const made = await call('create_upgrade', { ...oneTool('CallCounter', '0xA00001', 'return 1;', [{ name: 't', tool: 'tool', args: {} }]) });
  assert.ok(!made.ok && made.error.code === 'INVALID_UPGRADE_ID' && /did you mean "call-counter"\?: agent-made upgrade ids are kebab-case/.test(made.error.message), JSON.stringify(made));
  const bp = await blueprintFor('counter-two', ['t']);
  const dependent = value(await call<{ status: string; report: string }>('create_upgrade', oneTool('counter-two', bp, 'return 1;', [{ name: 't', tool: 'tool', args: {} }], { dependencies: ['NotesIndex'] })));
  assert.equal(dependent.status, 'rejected');
  assert.match(dependent.report, /it depends on NotesIndex, which this persona does not load; did you mean "notes-index"\? \(agent-made upgrade ids are kebab-case/);
  const misspelt = await call('upgrade_history', { id: 'NotesIndex' });
  assert.ok(!misspelt.ok && /no agent-made upgrade "NotesIndex"; did you mean "notes-index"\?/.test(misspelt.error.message), JSON.stringify(misspelt));
  const r = changes.list({ kind: 'persona' })[0]!;
  await assert.rejects(changes.approve(r.id, { caller: 'agent' }), /only a person/);
  const denied = value(await call<{ status: string }>('update_persona', { remove_tools: ['notes_index.*'] }));
  assert.equal(denied.status, 'active');
  const refused = await call('notes_index.notes_summary', {});
  assert.ok(!refused.ok && refused.error.code === 'TOOL_NOT_ALLOWED', JSON.stringify(refused));
  value(await call('update_persona', { add_tools: ['notes_index.*'] }));
  assert.equal((await call('notes_index.notes_summary', {})).ok, true);
});
