// The Changes upgrade's person-only tools over the real change path, a real ToolRunner with the
// project's own declarations (modules/*.json) and the change store in memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeKindHandler, ChangeRecord } from '../../../src/contracts/change-contract.ts';
import { createEventBus } from '../../../src/kernel/event-bus.ts';
import type { Persona } from '../../../src/kernel/manifest-schemas.ts';
import { readManifests } from '../../../src/kernel/manifests.ts';
import { nodeProjectFiles, projectRoot } from '../../../src/platform/node.ts';
import { memoryShared } from '../../../src/platform/memory-shared-store.ts';
import { createToolRunner } from '../../tool-runner/tool-runner.ts';
import { changeTools, type ListedChange } from './change-tools.ts';
import { createChanges } from '../changes.ts';

interface Note {
  name: string;
  text: string;
}

const persona = (policy: 'auto' | 'ask'): Persona => ({ id: 'maker', name: 'M', description: 'd', upgrades: ['Changes'], tools: ['*'], skills: [], selfModification: { tools: policy, blueprints: policy } });

async function setup(policy: 'auto' | 'ask' = 'ask') {
  const bus = createEventBus({ historySize: 1000 });
  const changes = await createChanges({ store: memoryShared().open(), bus, persona: persona(policy), watch: false });
  const live = new Map<string, string>();
  for (const kind of ['tool', 'blueprint'] as const) {
    const handler: ChangeKindHandler<Note> = {
      kind,
      targetOf: (c) => c.name,
      gate: async () => ({ problems: [], tests: [{ args: {}, ok: true, ms: 1 }] }),
      activate: async (t, c) => void live.set(`${kind}:${t}`, c.text),
      deactivate: async (t) => void live.delete(`${kind}:${t}`),
      present: (c) => ({ code: c.text, language: 'text' }),
    };
    changes.registerKind(handler);
  }
  const runner = createToolRunner({ bus, persona: persona(policy) });
  const manifests = await readManifests(nodeProjectFiles(projectRoot));
  const tools = changeTools(changes);
  runner.registerTools([...manifests.tools.values()].filter((d) => d.module === 'Changes'), (name, args, call) => tools[name]!(args, call));
  const propose = (name: string, text: string, o: { kind?: 'tool' | 'blueprint'; action?: 'create' | 'update'; caller?: string } = {}) =>
    changes.propose({ kind: o.kind ?? 'tool', action: o.action ?? 'create', content: { name, text }, caller: o.caller ?? 'agent', reason: `make ${name}` });
  const call = async <T>(name: string, args: Record<string, unknown>, caller = 'ui') => runner.executeTool<T>(name, args, { caller });
  return { changes, runner, live, propose, call };
}

test('the decision tools work for ui and cli only, and every manifest tool of Changes is a person\'s', async () => {
  const { changes, runner, live, propose, call } = await setup('ask');
  const declared = runner.getToolDeclarations({ audience: 'person' }).filter((d) => d.module === 'Changes');
  assert.deepEqual(declared.map((d) => d.name).sort(), ['approve_change', 'list_changes', 'read_change', 'reject_change', 'retire_change', 'rollback_change']);
  assert.ok(declared.every((d) => d.audience === 'person'));
  assert.deepEqual(runner.getToolDeclarations().filter((d) => d.module === 'Changes'), [], 'none is offered to agents');

  const a = await propose('alpha', 'one');
  for (const caller of ['agent', 'python', 'mcp', 'tool:made.x']) {
    const r = await call('approve_change', { id: a.id }, caller);
    assert.equal(!r.ok && r.error.code, 'PERSON_ONLY', caller);
  }
  assert.equal(changes.get(a.id)!.status, 'pending', 'nothing an agent did decided it');
  const ok = await call<ChangeRecord>('approve_change', { id: a.id });
  assert.equal(ok.ok && ok.value.status, 'active');
  assert.equal(changes.get(a.id)!.approver, 'ui');
  assert.equal(live.get('tool:alpha'), 'one');

  const b = await propose('alpha', 'two', { action: 'update' });
  const no = await call<ChangeRecord>('reject_change', { id: b.id }, 'cli');
  assert.equal(no.ok && no.value.status, 'rejected');
  assert.equal(changes.get(b.id)!.outcome, 'rejected by cli', 'the command line gives no reason unless asked');
  const c = await propose('alpha', 'three', { action: 'update' });
  await call('reject_change', { id: c.id });
  assert.equal(changes.get(c.id)!.outcome, 'rejected by ui: rejected on the dashboard');

  const missing = await call('approve_change', { id: 'cnothere0' });
  assert.equal(!missing.ok && missing.error.code, 'CHANGE_NOT_FOUND');
  const twice = await call('approve_change', { id: a.id });
  assert.equal(!twice.ok && twice.error.code, 'CHANGE_NOT_PENDING');
});

test('rollback_change and retire_change are a person\'s changes like any other', async () => {
  const { live, propose, call } = await setup('auto');
  await propose('beta', 'v1');
  await propose('beta', 'v2', { action: 'update' });
  const back = await call<ChangeRecord>('rollback_change', { kind: 'tool', target: 'beta', version: 1, reason: 'v2 is slow' });
  assert.equal(back.ok && back.value.status, 'active');
  assert.equal(live.get('tool:beta'), 'v1');
  const gone = await call<ChangeRecord>('retire_change', { kind: 'tool', target: 'beta' }, 'cli');
  assert.equal(gone.ok && gone.value.action, 'retire');
  assert.equal(live.has('tool:beta'), false);
  const bad = await call('retire_change', { kind: 'gadget', target: 'beta' });
  assert.equal(!bad.ok && bad.error.code, 'INVALID_ARGUMENTS');
  const refused = await call('rollback_change', { kind: 'tool', target: 'beta', version: 1 }, 'agent');
  assert.equal(!refused.ok && refused.error.code, 'PERSON_ONLY');
});

test('list_changes pages newest first with a cursor that stays valid as new changes arrive; filters and actions', async () => {
  const { propose, call, changes } = await setup('auto');
  for (let i = 0; i < 25; i++) await propose(i % 2 ? 'odd' : 'even', `text ${i}`, { action: i < 2 ? 'create' : 'update', kind: i % 5 === 0 ? 'blueprint' : 'tool', caller: i === 24 ? 'cli' : 'agent' });
  const first = await call<{ items: ListedChange[]; next_cursor?: string }>('list_changes', { limit: 10 });
  assert.ok(first.ok);
  const all = changes.list();
  assert.deepEqual(first.value.items.map((r) => r.id), all.slice(0, 10).map((r) => r.id), 'newest first');
  assert.ok(first.value.next_cursor);
  // A change made between two pages does not shift the next page.
  await propose('late', 'new');
  const second = await call<{ items: ListedChange[]; next_cursor?: string }>('list_changes', { limit: 10, cursor: first.value.next_cursor });
  assert.ok(second.ok);
  assert.deepEqual(second.value.items.map((r) => r.id), all.slice(10, 20).map((r) => r.id));
  const third = await call<{ items: ListedChange[]; next_cursor?: string }>('list_changes', { limit: 10, cursor: second.value.next_cursor });
  assert.ok(third.ok);
  assert.equal(third.value.items.length, 5);
  assert.equal(third.value.next_cursor, undefined, 'the last page says so');

  const blueprints = await call<{ items: ListedChange[] }>('list_changes', { kind: 'blueprint', limit: 100 });
  assert.ok(blueprints.ok && blueprints.value.items.length === 5 && blueprints.value.items.every((r) => r.kind === 'blueprint'));
  const active = await call<{ items: ListedChange[] }>('list_changes', { status: 'active' });
  assert.ok(active.ok);
  assert.deepEqual(active.value.items.map((r) => `${r.kind}:${r.target}`).sort(), ['blueprint:even', 'blueprint:odd', 'tool:even', 'tool:late', 'tool:odd']);
  assert.ok(active.value.items.every((r) => r.status === 'active' && r.actions.join() === 'retire'));
  const byPersona = await call<{ items: ListedChange[] }>('list_changes', { persona: 'nobody' });
  assert.ok(byPersona.ok && byPersona.value.items.length === 0);
  const byProcess = await call<{ items: ListedChange[] }>('list_changes', { process: 'p-1' });
  assert.ok(byProcess.ok && byProcess.value.items.length === 0, 'records that name no process match no process');

  // One Roll back per earlier version, on its newest record; none for the version in force.
  const odd = changes.list({ kind: 'tool', target: 'odd' });
  const everything = await call<{ items: ListedChange[] }>('list_changes', { limit: 100 });
  assert.ok(everything.ok);
  const rollbacks = everything.value.items.filter((r) => r.kind === 'tool' && r.target === 'odd' && r.actions.includes('rollback'));
  const inForce = odd.find((r) => r.status === 'active')!.version;
  assert.deepEqual(rollbacks.map((r) => r.version).sort(), [...new Set(odd.map((r) => r.version))].filter((v) => v !== inForce).sort());

  const bad = await call('list_changes', { cursor: 'after:nope' });
  assert.equal(!bad.ok && bad.error.code, 'INVALID_CURSOR');
  assert.match(!bad.ok ? bad.hint! : '', /next_cursor of the page before/);
});

test('read_change shows a change as the dashboard does: record, actions, code and the version before', async () => {
  const { propose, call } = await setup('ask');
  const v1 = await propose('gamma', 'first\n', { caller: 'cli' });
  const v2 = await propose('gamma', 'second\n', { action: 'update' });
  const r = await call<{ change: ChangeRecord; actions: string[]; current?: { code: string }; previous?: { code: string } }>('read_change', { id: v2.id });
  assert.ok(r.ok);
  assert.equal(r.value.change.id, v2.id);
  assert.deepEqual(r.value.actions, ['approve', 'reject']);
  assert.equal(r.value.current?.code, 'second\n');
  assert.equal(r.value.previous?.code, 'first\n');
  assert.equal(v1.status, 'active', 'a person\'s own change needs no approval');
  const listed = await call<{ items: ListedChange[] }>('list_changes', { present: true, limit: 1 });
  assert.ok(listed.ok);
  assert.equal(listed.value.items[0]!.current?.code, 'second\n', 'list_changes presents each change when asked');
  assert.equal(listed.value.items[0]!.previous?.code, 'first\n');
  const bare = await call<{ items: ListedChange[] }>('list_changes', { limit: 1 });
  assert.ok(bare.ok && bare.value.items[0]!.current === undefined, 'and only then');
  const none = await call('read_change', { id: 'cffffffff' });
  assert.equal(!none.ok && none.error.code, 'CHANGE_NOT_FOUND');
});

test('a change records the process that proposed it, and list_changes finds it by process', async () => {
  const bus = createEventBus();
  const changes = await createChanges({ store: memoryShared().open(), bus, persona: persona('auto'), process: 'p-9', watch: false });
  changes.registerKind({ kind: 'tool', targetOf: (c: Note) => c.name, gate: async () => ({ problems: [], tests: [{ args: {}, ok: true, ms: 1 }] }), activate: async () => undefined, deactivate: async () => undefined, present: (c: Note) => ({ code: c.text }) } as ChangeKindHandler<Note>);
  const r = await changes.propose({ kind: 'tool', action: 'create', content: { name: 'delta', text: 'x' }, caller: 'agent' });
  assert.equal(r.caller.process, 'p-9');
  const tools = changeTools(changes);
  assert.deepEqual((tools.list_changes!({ process: 'p-9' }, undefined as never) as { items: ChangeRecord[] }).items.map((x) => x.id), [r.id]);
  assert.deepEqual((tools.list_changes!({ process: 'p-1' }, undefined as never) as { items: ChangeRecord[] }).items, []);
});
