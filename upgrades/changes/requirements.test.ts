// Changes that build on each other: an "app" (kind upgrade) needs its "doc" (kind blueprint) in
// force, and apps come back at boot after the apps they depend on. Over a real workspace in memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeKindHandler, ChangesApi, SelfModificationPolicy } from '../../src/contracts/change-contract.ts';
import { reportOf } from '../../src/contracts/change-history.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { memoryShared, type MemoryShared } from '../../src/platform/memory-shared-store.ts';
import { createChanges } from './changes.ts';

interface Doc { id: string }
interface App { id: string; doc: string; deps: string[] }

function kinds(changes: () => ChangesApi, started: string[]) {
  const doc: ChangeKindHandler<Doc> = {
    kind: 'blueprint',
    targetOf: (c) => c.id,
    gate: async () => ({ problems: [], tests: [{ args: {}, ok: true, ms: 0 }] }),
    activate: async () => undefined,
    deactivate: async () => undefined,
    present: (c) => ({ code: c.id }),
  };
  const app: ChangeKindHandler<App> = {
    kind: 'upgrade',
    targetOf: (c) => c.id,
    // As the upgrade kind does: the doc must be in force, or pending (then the app builds on it).
    async gate(_t, c) {
      const inForce = changes().active('blueprint', c.doc);
      const pending = changes().list({ kind: 'blueprint', target: c.doc, status: 'pending' })[0];
      if (!inForce && !pending) return { problems: [`doc ${c.doc} does not exist`], tests: [] };
      return { problems: [], tests: [{ args: {}, ok: true, ms: 0 }], ...(inForce ? {} : { requires: [pending!.id] }) };
    },
    activate: async (t) => void started.push(t),
    deactivate: async () => undefined,
    present: (c) => ({ code: c.id }),
    dependenciesOf: (c) => c.deps,
  };
  return [doc, app] as const;
}

async function setup(policies: { blueprints?: SelfModificationPolicy; upgrades?: SelfModificationPolicy }, opts: { store?: MemoryShared; safe?: boolean } = {}) {
  const store = opts.store ?? memoryShared();
  const bus = createEventBus();
  const persona: Persona = { id: 'p', name: 'P', description: 'd', upgrades: ['Changes'], tools: ['*'], skills: [], selfModification: policies };
  const started: string[] = [];
  const changes = await createChanges({ store: store.open(), bus, persona, ...(opts.safe ? { safe: true } : {}) });
  for (const k of kinds(() => changes, started)) changes.registerKind(k);
  return { changes, started, store };
}

const proposeDoc = (c: ChangesApi, id = 'guide') => c.propose({ kind: 'blueprint', action: 'create', content: { id }, caller: 'agent' });
const proposeApp = (c: ChangesApi, id = 'app', deps: string[] = [], caller: 'agent' | 'cli' = 'agent') => c.propose({ kind: 'upgrade', action: 'create', content: { id, doc: 'guide', deps }, caller });

test('a change built on a pending one waits for it, cannot be approved before it, and comes in when it does', async () => {
  const { changes, started } = await setup({ blueprints: 'ask', upgrades: 'auto' });
  const doc = await proposeDoc(changes);
  assert.equal(doc.status, 'pending');
  const app = await proposeApp(changes);
  assert.equal(app.status, 'pending', 'auto, but its doc is not in force');
  assert.deepEqual(app.requires, [doc.id]);
  assert.equal(app.outcome, '1 of 1 test passed', 'the outcome is what the gate found');
  assert.equal(reportOf(app), `1 of 1 test passed; it builds on change ${doc.id}, which must come into force first`);
  await assert.rejects(changes.approve(app.id, { caller: 'cli' }), (e: Error & { code?: string; hint?: string }) => e.code === 'REQUIREMENT_PENDING' && e.hint === `armature approve ${doc.id} ${app.id}`);
  await changes.approve(doc.id, { caller: 'cli' });
  // The app's policy is auto: once its doc is in force it comes in on its own.
  assert.equal(changes.get(app.id)!.status, 'active');
  assert.equal(changes.get(app.id)!.approver, 'auto');
  assert.deepEqual(started, ['app']);
});

test('under ask, the person approves in order; rejecting the base rejects what builds on it', async () => {
  const { changes, started } = await setup({ blueprints: 'ask', upgrades: 'ask' });
  const doc = await proposeDoc(changes);
  const app = await proposeApp(changes);
  await changes.approve(doc.id, { caller: 'ui' });
  assert.equal(changes.get(app.id)!.status, 'pending', 'ask: still a person\'s decision');
  assert.equal((await changes.approve(app.id, { caller: 'ui' })).status, 'active');
  assert.deepEqual(started, ['app']);

  const doc2 = await proposeDoc(changes, 'other');
  const app2 = await changes.propose({ kind: 'upgrade', action: 'create', content: { id: 'app2', doc: 'other', deps: [] }, caller: 'agent' });
  assert.deepEqual(app2.requires, [doc2.id]);
  await changes.reject(doc2.id, { caller: 'cli', reason: 'not this' });
  const after = changes.get(app2.id)!;
  assert.equal(after.status, 'rejected');
  assert.match(after.outcome!, new RegExp(`builds on change ${doc2.id}, which was rejected`));
});

test('a person\'s own change built on a pending one comes in as soon as the base does', async () => {
  const { changes, started } = await setup({ blueprints: 'ask', upgrades: 'ask' });
  const doc = await proposeDoc(changes);
  const app = await proposeApp(changes, 'app', [], 'cli');
  assert.equal(app.status, 'pending');
  await changes.approve(doc.id, { caller: 'cli' });
  assert.equal(changes.get(app.id)!.status, 'active');
  assert.equal(changes.get(app.id)!.approver, 'cli');
  assert.deepEqual(started, ['app']);
});

test('at boot, targets come back after those they depend on; in safe mode nothing comes back', async () => {
  const first = await setup({ blueprints: 'auto', upgrades: 'auto' });
  await proposeDoc(first.changes);
  // Created in an order that differs from the dependency order.
  await proposeApp(first.changes, 'top', ['middle', 'base']);
  await proposeApp(first.changes, 'middle', ['base']);
  await proposeApp(first.changes, 'base');
  const next = await setup({}, { store: first.store });
  assert.deepEqual(await next.changes.restore('upgrade'), []);
  assert.deepEqual(next.started, ['base', 'middle', 'top']);
  const safe = await setup({}, { store: first.store, safe: true });
  assert.equal(safe.changes.safe, true);
  assert.deepEqual(await safe.changes.restore('upgrade'), []);
  assert.deepEqual(safe.started, []);
  assert.equal(safe.changes.list({ status: 'active' }).length, 4, 'the records are all there, for review');
});
