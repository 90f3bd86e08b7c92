// Agent-made blueprints over a real change path and workspace in memory: ids from the agents'
// range, checks like the project's own, beside the project's blueprints once in force, versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangesApi, SelfModificationPolicy } from '../../src/contracts/change-contract.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { ToolCallContext } from '../../src/kernel/upgrade.ts';
import { memoryShared } from '../../src/platform/memory-shared-store.ts';
import { memoryProject } from '../../test/helpers/memory-platform.ts';
import { createChanges } from '../changes/changes.ts';
import { blueprintText, createBlueprintKind } from './blueprint-kind.ts';
import { madeBlueprintHandlers, type BlueprintChangeAnswer } from './made-blueprints.ts';
import { createBlueprintRegistry, loadBlueprints } from './registry.ts';

const BODY = ['# Notes Index', '## 1. Objective', 'Count notes by folder.', '## 2. Design', 'A map folder -> count.', '## 4. Verification', '- [ ] counts files by folder (test: counts-by-folder)'].join('\n');
const PROJECT = { 'blueprints/0x000014-workspace.md': '---\nid: 0x000014\ntitle: Workspace\ntarget: Workspace\n---\n# Workspace\n' };

async function setup(policy: SelfModificationPolicy = 'auto', store = memoryShared()) {
  const bus = createEventBus();
  const persona: Persona = { id: 'maker', name: 'M', description: 'd', upgrades: ['Blueprints'], tools: ['*'], skills: [], selfModification: { blueprints: policy } };
  const changes: ChangesApi = await createChanges({ store: store.open(), bus, persona });
  const registry = createBlueprintRegistry(await loadBlueprints(memoryProject(PROJECT)));
  const kind = createBlueprintKind({ registry, changes });
  changes.registerKind(kind);
  const tools = madeBlueprintHandlers(changes, 'maker');
  const call = { callId: 'c1', caller: 'agent', signal: new AbortController().signal } as ToolCallContext;
  const run = async (name: string, args: Record<string, unknown>) => (await tools[name]!(args, call)) as BlueprintChangeAnswer;
  return { changes, registry, kind, run, store };
}

test('create_blueprint allocates 0xA00001, 0xA00002...; in force it sits beside the project\'s blueprints', async () => {
  const { registry, run, kind } = await setup();
  const a = await run('create_blueprint', { title: 'Notes Index', target: 'notes-index', prerequisites: ['0x000014'], body: BODY, reason: 'an index of notes' });
  assert.equal(a.status, 'active', JSON.stringify(a));
  assert.equal(a.id, '0xA00001');
  assert.deepEqual(a.tests.map((t) => [t.name, t.ok]), [['front-matter', true], ['target', true], ['prerequisites', true], ['sections', true], ['checklist', true]]);
  const b = await run('create_blueprint', { title: 'Other', target: 'other-thing', body: BODY });
  assert.equal(b.id, '0xA00002');
  assert.deepEqual(registry.list().map((x) => [x.id, x.origin]), [['0x000014', 'project'], ['0xA00001', 'agent'], ['0xA00002', 'agent']]);
  const read = registry.get('0xa00001');
  assert.equal(read.target, 'notes-index');
  assert.equal(read.version, 1);
  assert.match(read.file, /^changes:[0-9a-f]{12}$/);
  assert.deepEqual(kind.candidate('0xA00001')!.checklist.map((i) => i.test), ['counts-by-folder']);
  assert.equal(kind.candidate('0xA00001')!.status, 'active');
  assert.equal(kind.candidate('0x000014')!.status, 'project');
});

test('a blueprint missing a house section, a checklist item without its test, a bad target or prerequisite is rejected with the reason', async () => {
  const { run, registry } = await setup();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ body: '## Objective\nx' }, /no design section/],
    [{ body: BODY.replace(' (test: counts-by-folder)', '') }, /names no test: end it with \(test: NAME\)/],
    [{ target: 'NotesIndex' }, /not an agent-made upgrade id/],
    // The id to write, the rule, and why: agent-made ids never collide with the built-in PascalCase ones.
    [{ target: 'CallCounter' }, /target "CallCounter" is not an agent-made upgrade id; write it as "call-counter": agent-made upgrade ids are kebab-case.*never collide with the built-in upgrades, whose ids are PascalCase/],
    [{ prerequisites: ['0x0000FF'] }, /prerequisite "0x0000FF" is not a blueprint/],
  ];
  for (const [over, why] of cases) {
    const r = await run('create_blueprint', { title: 'T', target: 'notes-index', body: BODY, ...over });
    assert.equal(r.status, 'rejected', JSON.stringify(over));
    assert.match(r.report!, why);
    assert.match(r.hint!, /Nothing came into force/);
  }
  assert.deepEqual(registry.list().map((x) => x.id), ['0x000014']);
});

test('update_blueprint makes the next version; under ask it is pending, yet an upgrade can be built on it', async () => {
  const { run, registry, kind, changes } = await setup('ask');
  const a = await run('create_blueprint', { title: 'Notes Index', target: 'notes-index', body: BODY });
  assert.equal(a.status, 'pending');
  assert.match(a.hint!, /A person must approve change/);
  assert.equal(registry.list().length, 1, 'not in force yet');
  const pending = kind.candidate(a.id)!;
  assert.equal(pending.status, 'pending');
  assert.equal(pending.change, a.change);
  await changes.approve(a.change, { caller: 'ui' });
  const u = await run('update_blueprint', { id: a.id, title: 'Notes Index v2' });
  assert.equal(u.version, 2);
  await changes.approve(u.change, { caller: 'cli' });
  assert.equal(registry.get(a.id).title, 'Notes Index v2');
  assert.equal(registry.get(a.id).body, BODY, 'fields left out are kept');
  await assert.rejects(Promise.resolve().then(() => run('update_blueprint', { id: '0x000014', title: 'x' })), /no agent-made blueprint "0x000014".*/);
});

test('the blueprint text is front matter the project\'s parser reads back', async () => {
  const { parseBlueprint } = await import('./front-matter.ts');
  const bp = parseBlueprint('x.md', blueprintText({ id: '0xA00001', title: 'Notes: "Index"', target: 'notes-index', prerequisites: ['0x000014'], body: BODY }));
  assert.deepEqual([bp.id, bp.title, bp.target, bp.prerequisites, bp.body], ['0xA00001', 'Notes: "Index"', 'notes-index', ['0x000014'], BODY]);
});

test('the project\'s blueprints may not take an id in the agents\' range', async () => {
  await assert.rejects(loadBlueprints(memoryProject({ 'blueprints/x.md': '---\nid: 0xA00001\ntitle: X\ntarget: kernel\n---\n' })), /0xA00000-0xAFFFFF, the range kept for agent-made blueprints/);
});
