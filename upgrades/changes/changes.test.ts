// The change path with a small kind of its own ("note": content { name, text, tests }), over a real
// workspace in memory. The tool kind (MadeTools) runs the same path for real in its own suites.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeKindHandler, ChangeRecord } from '../../src/contracts/change-contract.ts';
import { createEventBus, type EventBus } from '../../src/kernel/event-bus.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { memoryShared, type MemoryShared } from '../../src/platform/memory-shared-store.ts';
import { createChanges } from './changes.ts';

interface Note {
  name: string;
  text: string;
  tests: boolean[];
}

const persona = (policy?: 'auto' | 'ask' | 'off'): Persona => ({
  id: 'p',
  name: 'P',
  description: 'd',
  upgrades: ['Changes'],
  tools: ['*'],
  skills: [],
  ...(policy ? { selfModification: { tools: policy } } : {}),
});

/** A kind whose "tests" are the booleans the content lists, and whose active notes are a map. */
function noteKind(live: Map<string, string>, opts: { failActivate?: string } = {}): ChangeKindHandler<Note> & { released: string[] } {
  const released: string[] = [];
  return {
    kind: 'tool',
    released,
    targetOf(c) {
      if (!/^[a-z]+$/.test(c.name)) throw new ArmatureError('INVALID_NAME', `bad name ${c.name}`);
      return c.name;
    },
    async gate(_t, c) {
      return { problems: c.text ? [] : ['the text is empty'], tests: c.tests.map((ok, i) => ({ args: { i }, ok, ms: 1, ...(ok ? { value: i } : { error: { code: 'EXPECTED', message: `test ${i} failed` } }) })) };
    },
    async activate(t, c) {
      if (opts.failActivate === c.text) throw new Error(`cannot activate ${c.text}`);
      live.set(t, c.text);
    },
    async deactivate(t) {
      live.delete(t);
    },
    async release(_t, hash) {
      released.push(hash);
    },
    present: (c) => ({ code: c.text, language: 'text' }),
  };
}

async function setup(policy?: 'auto' | 'ask' | 'off', store: MemoryShared = memoryShared()) {
  const bus: EventBus = createEventBus({ historySize: 1000 });
  const changes = await createChanges({ store: store.open(), bus, persona: persona(policy) });
  const live = new Map<string, string>();
  const kind = noteKind(live);
  changes.registerKind(kind);
  const types = () => bus.history().map((e) => e.type).filter((t) => t.startsWith('change:'));
  return { bus, changes, live, kind, store, types };
}

const note = (text: string, tests = [true]) => ({ kind: 'tool' as const, action: 'create' as const, content: { name: 'hello', text, tests }, caller: 'agent' as const, reason: `say ${text}` });

test('auto: a version that passes its gate comes into force; the next one supersedes it', async () => {
  const { changes, live, types, store } = await setup('auto');
  const a = await changes.propose(note('one'));
  assert.equal(a.status, 'active');
  assert.equal(a.version, 1);
  assert.equal(a.approver, 'auto');
  assert.equal(a.parent, null);
  assert.match(a.hash!, /^[0-9a-f]{64}$/);
  assert.equal(live.get('hello'), 'one');
  const b = await changes.propose({ ...note('two'), action: 'update' });
  assert.equal(b.version, 2);
  assert.equal(b.parent, 1);
  assert.equal(b.replaced, a.id);
  assert.equal(changes.get(a.id)!.status, 'superseded');
  assert.equal(live.get('hello'), 'two');
  assert.deepEqual(types(), ['change:proposed', 'change:activated', 'change:proposed', 'change:activated', 'change:superseded']);
  // The stored version is content-addressed and holds the content.
  assert.ok(store.blobs.get(`${a.hash}.json`));
  assert.deepEqual(changes.content(a), { name: 'hello', text: 'one', tests: [true] });
  // The same content again is the same version.
  const c = await changes.propose({ ...note('one'), action: 'update' });
  assert.equal(c.version, 1);
  assert.equal(c.hash, a.hash);
});

test('ask: a passing version waits as pending until a person approves it; an agent can never approve', async () => {
  const { changes, live, kind } = await setup('ask');
  const r = await changes.propose(note('one'));
  assert.equal(r.status, 'pending');
  assert.equal(live.has('hello'), false);
  assert.deepEqual(kind.released, [r.hash], 'what the gate kept is freed while it waits');
  for (const caller of ['agent', 'python', 'test', 'system', 'tool:made.x']) {
    await assert.rejects(changes.approve(r.id, { caller }), (e: ArmatureError) => e.code === 'APPROVAL_REFUSED' && /only a person/.test(e.message));
    await assert.rejects(changes.reject(r.id, { caller }), (e: ArmatureError) => e.code === 'APPROVAL_REFUSED');
  }
  assert.equal(changes.get(r.id)!.status, 'pending');
  const done = await changes.approve(r.id, { caller: 'ui' });
  assert.equal(done.status, 'active');
  assert.equal(done.approver, 'ui');
  assert.equal(live.get('hello'), 'one');
  await assert.rejects(changes.approve(r.id, { caller: 'cli' }), (e: ArmatureError) => e.code === 'CHANGE_NOT_PENDING');
  await assert.rejects(changes.approve('c00000000', { caller: 'cli' }), (e: ArmatureError) => e.code === 'CHANGE_NOT_FOUND' && /"c00000000"/.test(e.message));
  // A person's rejection keeps what is in force.
  const next = await changes.propose({ ...note('two'), action: 'update' });
  const no = await changes.reject(next.id, { caller: 'cli', reason: 'not now' });
  assert.equal(no.status, 'rejected');
  assert.match(no.outcome!, /rejected by cli: not now/);
  assert.equal(live.get('hello'), 'one');
  // A person's own change needs no approval.
  const mine = await changes.propose({ ...note('three'), action: 'update', caller: 'cli' });
  assert.equal(mine.status, 'active');
  assert.equal(mine.approver, 'cli');
});

test('the gate: failing tests, no tests, static problems and a failed activation are rejected; what is in force stays', async () => {
  const { changes, live } = await setup('auto');
  await changes.propose(note('one'));
  const failing = await changes.propose({ ...note('bad', [true, false]), action: 'update' });
  assert.equal(failing.status, 'rejected');
  assert.match(failing.outcome!, /1 of 2 tests failed: \{"i":1\} -> EXPECTED: test 1 failed/);
  assert.equal(failing.tests.length, 2);
  const none = await changes.propose({ ...note('none', []), action: 'update' });
  assert.match(none.outcome!, /has no tests/);
  const empty = await changes.propose({ ...note(''), action: 'update' });
  assert.match(empty.outcome!, /the text is empty/);
  assert.equal(live.get('hello'), 'one');
  // Bad input naming no target is refused before anything is stored.
  await assert.rejects(changes.propose({ ...note('x'), content: { name: 'BAD', text: 'x', tests: [true] } }), (e: ArmatureError) => e.code === 'INVALID_NAME');

  const bus = createEventBus();
  const l2 = new Map<string, string>();
  const other = await createChanges({ store: memoryShared().open(), bus, persona: persona('auto') });
  other.registerKind(noteKind(l2, { failActivate: 'boom' }));
  await other.propose(note('one'));
  const boom = await other.propose({ ...note('boom'), action: 'update' });
  assert.equal(boom.status, 'rejected');
  assert.match(boom.outcome!, /could not be brought into force: cannot activate boom/);
  assert.equal(l2.get('hello'), 'one');
});

test('off: the persona may not change this kind at all; people still may', async () => {
  const { changes, store } = await setup('off');
  await assert.rejects(changes.propose(note('one')), (e: ArmatureError) => e.code === 'SELF_MODIFICATION_OFF' && /"ask"/.test(e.hint!));
  assert.equal(store.lines.length + store.blobs.size, 0, 'nothing was stored');
  assert.equal((await changes.propose({ ...note('one'), caller: 'ui' })).status, 'active');
  assert.equal(changes.policy('tool'), 'off');
  assert.equal(changes.policy('upgrade'), 'ask', 'each kind defaults to ask');
});

test('rollback is a change like any other; retire takes the target out; revert brings back what was replaced', async () => {
  const { changes, live, bus } = await setup('auto');
  const one = await changes.propose(note('one'));
  const two = await changes.propose({ ...note('two'), action: 'update' });
  const back = await changes.rollback('tool', 'hello', 1, { caller: 'agent', reason: 'two was worse' });
  assert.equal(back.status, 'active');
  assert.equal(back.action, 'rollback');
  assert.equal(back.version, 1);
  assert.equal(back.tests.length, 1, 'the old version was tested again');
  assert.equal(live.get('hello'), 'one');
  assert.equal(changes.get(two.id)!.status, 'rolled-back');
  assert.match(changes.get(two.id)!.outcome!, /rolled back to version 1 by agent: two was worse/);
  await assert.rejects(changes.rollback('tool', 'hello', 1, { caller: 'agent' }), (e: ArmatureError) => e.code === 'ALREADY_ACTIVE');
  await assert.rejects(changes.rollback('tool', 'hello', 9, { caller: 'agent' }), (e: ArmatureError) => e.code === 'VERSION_NOT_FOUND' && /versions: 1, 2/.test(e.hint!));

  // The canary's revert: back to the version the failing one replaced, without approval.
  const three = await changes.propose({ ...note('three'), action: 'update' });
  const reverted = await changes.revert('tool', 'hello', 'canary: 3 of the first 4 calls failed');
  assert.equal(reverted!.version, back.version);
  assert.equal(reverted!.approver, 'system');
  assert.equal(reverted!.caller.via, 'system');
  assert.equal(live.get('hello'), 'one');
  assert.equal(changes.get(three.id)!.status, 'rolled-back');
  const rolled = bus.history(['change:rolled-back']).map((e) => e.payload);
  assert.equal(rolled.at(-1)!.change.id, three.id);
  assert.equal(rolled.at(-1)!.reason, 'canary: 3 of the first 4 calls failed');

  const retired = await changes.retire('tool', 'hello', { caller: 'agent', reason: 'done' });
  assert.equal(retired.status, 'active');
  assert.equal(retired.version, null);
  assert.equal(live.has('hello'), false);
  await assert.rejects(changes.retire('tool', 'hello', { caller: 'agent' }), (e: ArmatureError) => e.code === 'NOT_ACTIVE');
  assert.equal(await changes.revert('tool', 'hello', 'nothing'), undefined);
  // The first version is still in the history; a new one can follow the retirement.
  assert.equal(changes.get(one.id)!.status, 'superseded');
  assert.equal((await changes.propose(note('four'))).version, 4);
});

test('the journal only ever grows; a new instance restores what is in force and reports a damaged version without stopping', async () => {
  const store = memoryShared();
  const first = await setup('auto', store);
  const a = await first.changes.propose(note('one'));
  const before = [...store.lines];
  await first.changes.propose({ ...note('two'), action: 'update' });
  assert.deepEqual(store.lines.slice(0, before.length), before, 'earlier lines are never rewritten');
  assert.equal(store.lines.length, 2, 'one line per decision: the second version in force ends the first in the same line');

  // Another target whose stored version is then damaged on disk.
  const other = await first.changes.propose({ ...note('x'), content: { name: 'other', text: 'x', tests: [true] } });
  const name = `${other.hash}.json`;
  store.blobs.set(name, new TextEncoder().encode(new TextDecoder().decode(store.blobs.get(name)!).replace('"x"', '"y"')));

  const second = await setup('auto', store);
  assert.equal(second.changes.get(a.id)!.status, 'superseded');
  const failures = await second.changes.restore('tool');
  assert.equal(second.live.get('hello'), 'two');
  assert.equal(second.live.has('other'), false);
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.error.code, 'VERSION_CORRUPTED');
  assert.equal(failures[0]!.change.target, 'other');
  assert.deepEqual(second.bus.history(['change:load-failed']).map((e) => e.payload.change.id), [other.id]);
  assert.equal(second.changes.loadFailures().length, 1);
});

test('records name the persona and the agent run; present() gives the code and the version it replaced', async () => {
  const { changes, bus } = await setup('auto');
  bus.emit('agent:run-started', { runId: 'run-7', goal: 'g', persona: 'p', toolMode: 'code', maxSteps: 8, continued: false });
  const a = await changes.propose({ ...note('one'), callId: 'run-7/1/call_0' });
  assert.deepEqual(a.caller, { persona: 'p', run: 'run-7', via: 'agent' });
  const b = await changes.propose({ ...note('two'), action: 'update', caller: 'python', callId: 'call-99' });
  assert.equal(b.caller.run, 'run-7', 'a call from Python inside the run belongs to it');
  bus.emit('agent:run-finished', { runId: 'run-7', reason: 'answered', steps: 1, usage: { inputTokens: 0, outputTokens: 0 } });
  const c = await changes.propose({ ...note('three'), action: 'update', caller: 'cli' });
  assert.equal(c.caller.run, undefined);
  const shown = changes.present(b.id)!;
  assert.equal(shown.current!.code, 'two');
  assert.equal(shown.previous!.code, 'one');
  assert.equal(changes.present(a.id)!.previous, undefined);
  assert.deepEqual(changes.list().map((r: ChangeRecord) => r.id), [c.id, b.id, a.id]);
  assert.deepEqual(changes.list({ status: 'active' }).map((r) => r.id), [c.id]);
});

test('operations on one target run in call order', async () => {
  const { changes } = await setup('auto');
  const results = await Promise.all(['a', 'b', 'c', 'd'].map((t, i) => changes.propose({ ...note(t), action: i ? 'update' : 'create' })));
  assert.deepEqual(results.map((r) => r.version), [1, 2, 3, 4]);
  assert.deepEqual(results.map((r) => changes.get(r.id)!.status), ['superseded', 'superseded', 'superseded', 'active']);
});
