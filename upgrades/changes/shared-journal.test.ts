// The change journal shared by several change paths at once (two "processes" over one in-memory
// store): damaged lines are reported and never folded, one decision per target wins, what one
// decides the other hears of and follows, canary counts add up, and pending changes are capped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeKindHandler } from '../../src/contracts/change-contract.ts';
import { createEventBus, type EventBus } from '../../src/kernel/event-bus.ts';
import type { ArmatureError } from '../../src/kernel/errors.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { memoryShared, type MemoryShared } from '../../src/platform/memory-shared-store.ts';
import { createChanges } from './changes.ts';
import { checksum } from './journal.ts';

interface Note {
  name: string;
  text: string;
}

const persona = (policy: 'auto' | 'ask'): Persona => ({ id: 'p', name: 'P', description: 'd', upgrades: ['Changes'], tools: ['*'], skills: [], selfModification: { tools: policy } });

function noteKind(live: Map<string, string>): ChangeKindHandler<Note> {
  return {
    kind: 'tool',
    targetOf: (c) => c.name,
    gate: async () => ({ problems: [], tests: [{ args: {}, ok: true, ms: 1 }] }),
    activate: async (t, c) => void live.set(t, c.text),
    deactivate: async (t) => void live.delete(t),
    present: (c) => ({ code: c.text }),
  };
}

/** One "process": a change path over `shared` with a note kind whose live notes are a map. */
async function open(shared: MemoryShared, policy: 'auto' | 'ask' = 'ask', extra: { maxPending?: number } = {}) {
  const bus: EventBus = createEventBus({ historySize: 1000 });
  const logs: string[] = [];
  const changes = await createChanges({ store: shared.open(), bus, persona: persona(policy), watch: false, log: (t) => logs.push(t), ...extra });
  const live = new Map<string, string>();
  changes.registerKind(noteKind(live));
  await changes.restore('tool');
  const types = () => bus.history().map((e) => e.type).filter((t) => t.startsWith('change:'));
  return { bus, changes, live, types, logs };
}

const note = (name: string, text: string, caller: 'agent' | 'cli' = 'agent') => ({ kind: 'tool' as const, action: 'create' as const, content: { name, text }, caller, reason: text });

test('a decision in one process reaches the other on refresh: its events, and its kind follows (approve, roll back, retire)', async () => {
  const shared = memoryShared();
  const a = await open(shared);
  const b = await open(shared);
  const r = await a.changes.propose(note('hello', 'one'));
  assert.equal(r.status, 'pending');
  await b.changes.refresh();
  assert.equal(b.changes.get(r.id)?.status, 'pending', 'the other process sees the pending change');
  assert.deepEqual(b.types(), ['change:pending']);

  await b.changes.approve(r.id, { caller: 'cli' });
  assert.equal(b.live.get('hello'), 'one');
  assert.equal(a.live.has('hello'), false, 'not before it reads the journal');
  await a.changes.refresh();
  assert.equal(a.live.get('hello'), 'one', 'the approved version came into force in the other process');
  assert.deepEqual(a.types().slice(-2), ['change:approved', 'change:activated']);
  assert.equal(a.changes.active('tool', 'hello')?.id, r.id);

  const two = await a.changes.propose({ ...note('hello', 'two', 'cli'), action: 'update' });
  await b.changes.refresh();
  assert.equal(b.live.get('hello'), 'two');
  assert.deepEqual(b.types().slice(-2), ['change:activated', 'change:superseded']);
  await b.changes.rollback('tool', 'hello', 1, { caller: 'cli' });
  await a.changes.refresh();
  assert.equal(a.live.get('hello'), 'one', 'a rollback there takes the version out here');
  assert.equal(a.changes.get(two.id)?.status, 'rolled-back');
  await a.changes.retire('tool', 'hello', { caller: 'cli' });
  await b.changes.refresh();
  assert.equal(b.live.has('hello'), false, 'a retirement there takes the tool out here');
  assert.equal(a.changes.list({ status: 'active' }).length, 1);
  assert.equal(b.changes.list({ status: 'active' }).length, 1);
});

test('an approval over a stale view cannot bring in a second version: one per target, the same in both', async () => {
  const shared = memoryShared();
  const a = await open(shared);
  const b = await open(shared);
  const r = await a.changes.propose(note('hello', 'one'));
  await b.changes.refresh();
  await a.changes.approve(r.id, { caller: 'ui' });
  // b has not read a's approval: its own approval reads the journal first, under the target's lock.
  await assert.rejects(b.changes.approve(r.id, { caller: 'cli' }), (e: ArmatureError) => e.code === 'CHANGE_NOT_PENDING');

  // Two activation lines written over the same view (as two processes whose lock failed them would):
  // the fold keeps the first and refuses the second, in every process alike.
  const p1 = await a.changes.propose({ ...note('hello', 'two'), action: 'update' });
  const p2 = await a.changes.propose({ ...note('hello', 'three'), action: 'update' });
  const line = (id: string) => {
    // No `end`: a line that forgets to end what it replaces still never leaves two in force.
    const json = JSON.stringify({ t: 'activate', id, replaced: r.id, set: { approver: 'cli', decidedAt: 1, activatedAt: 1 }, at: 1, by: { instance: 'elsewhere' } });
    return `${checksum(json)} ${json}`;
  };
  shared.lines.push(line(p1.id), line(p2.id));
  const c = await open(shared);
  await a.changes.refresh();
  for (const x of [a, c]) {
    assert.equal(x.changes.active('tool', 'hello')?.id, p1.id);
    assert.equal(x.changes.get(p2.id)?.status, 'pending');
    assert.equal(x.changes.list({ status: 'active' }).length, 1);
  }
  assert.equal(a.live.get('hello'), 'two', 'the process follows the one that won');
  assert.equal(c.changes.get(r.id)?.status, 'superseded', 'what the winner replaced ended with it');
  assert.match(c.changes.repairs().map((x) => x.what).join('\n'), new RegExp(`activation of change ${p2.id} over ${r.id}, while change ${p1.id} was in force .*stale view`));
});

test('a torn line and an edited line are skipped, reported once, and recorded; the rest is folded', async () => {
  const shared = memoryShared();
  const a = await open(shared, 'auto');
  const one = await a.changes.propose(note('hello', 'one'));
  const two = await a.changes.propose({ ...note('hello', 'two'), action: 'update' });
  const three = await a.changes.propose(note('other', 'x'));
  assert.equal(shared.lines.length, 3);
  // The second line edited by hand (its checksum no longer matches), the third torn by a crash.
  shared.lines[1] = shared.lines[1]!.replace('"two"', '"TWO"').replace(`"reason":"two"`, `"reason":"TW0"`);
  shared.lines[2] = shared.lines[2]!.slice(0, 40);
  const b = await open(shared, 'auto');
  assert.equal(b.changes.active('tool', 'hello')?.id, one.id, 'the edited activation was not folded: version 1 stays in force');
  assert.equal(b.changes.get(two.id), undefined);
  assert.equal(b.changes.get(three.id), undefined, 'the torn line was not folded');
  assert.equal(b.live.get('hello'), 'one');
  const repaired = b.bus.history(['change:repaired']).flatMap((e) => e.payload.repairs.map((r) => r.what));
  assert.equal(repaired.length, 2, repaired.join('\n'));
  assert.match(repaired[0]!, /line at 1 of memory: its checksum does not match: cut short by a crash, or edited/);
  assert.match(repaired[1]!, /line at 2 of memory: (its checksum does not match|not a journal line)/);
  assert.equal(shared.lines.length, 4, 'the repair is recorded in the journal');
  // Reported once: the next process reads the repair line and reports nothing new.
  const c = await open(shared, 'auto');
  assert.equal(c.bus.history(['change:repaired']).length, 0);
  assert.equal(c.changes.repairs().length, 2, 'the recorded repairs stay listed');
  assert.equal(shared.lines.length, 4);
});

test('canary counts add up across processes, within the window, and survive a new process', async () => {
  const shared = memoryShared();
  const a = await open(shared, 'auto');
  const b = await open(shared, 'auto');
  const r = await a.changes.propose(note('flaky', 'v1'));
  await b.changes.refresh();
  await a.changes.countCall(r.id, { ok: false, error: { code: 'E', message: 'one' } }, 3);
  const seen = await b.changes.countCall(r.id, { ok: true }, 3);
  assert.deepEqual(seen, { calls: 2, failures: 1, last: { code: 'E', message: 'one' } });
  await a.changes.countCall(r.id, { ok: false, error: { code: 'E', message: 'three' } }, 3);
  assert.deepEqual(await b.changes.countCall(r.id, { ok: false }, 3), { calls: 3, failures: 2, last: { code: 'E', message: 'three' } }, 'the fourth call is past the window');
  const c = await open(shared, 'auto');
  assert.deepEqual(c.changes.callCount(r.id), { calls: 3, failures: 2, last: { code: 'E', message: 'three' } });
});

test('pending changes are capped per persona, with an error that names the cap and how to clear it', async () => {
  const shared = memoryShared();
  const a = await open(shared, 'ask', { maxPending: 3 });
  const ids: string[] = [];
  for (const n of ['a', 'b', 'c']) ids.push((await a.changes.propose(note(n, n))).id);
  await assert.rejects(a.changes.propose(note('d', 'd')), (e: ArmatureError) => {
    assert.equal(e.code, 'PENDING_CAP');
    assert.match(e.message, /persona p has 3 changes waiting for a person, its cap \(3\)/);
    assert.match(e.hint!, /armature changes/);
    assert.match(e.hint!, /armature reject ID/);
    assert.match(e.hint!, /maxPending/);
    return true;
  });
  assert.equal(a.changes.list().length, 3, 'nothing was recorded');
  // Another process on the same store counts the same pending changes.
  const b = await open(shared, 'ask', { maxPending: 3 });
  await assert.rejects(b.changes.propose(note('e', 'e')), (e: ArmatureError) => e.code === 'PENDING_CAP');
  assert.equal((await b.changes.propose(note('f', 'f', 'cli'))).status, 'active', "a person's own change is never capped");
  await b.changes.reject(ids[0]!, { caller: 'cli' });
  await a.changes.refresh();
  assert.equal((await a.changes.propose(note('d', 'd'))).status, 'pending', 'one decided: one more may wait');
});
