import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeRecord } from '../contracts/change-contract.ts';
import { createEventBus } from './event-bus.ts';

test('handlers receive typed payloads and the record', () => {
  const bus = createEventBus();
  const seen: unknown[] = [];
  bus.on('module:loaded', (p, r) => seen.push([p.id, p.durationMs, r.type, typeof r.seq]));
  bus.emit('module:loaded', { id: 'A', version: '1.0.0', durationMs: 3 });
  assert.deepEqual(seen, [['A', 3, 'module:loaded', 'number']]);
});

test('type errors: unknown events and wrong payloads do not compile', () => {
  const bus = createEventBus();
  // @ts-expect-error — not an event of the map
  bus.emit('module:exploded', { id: 'A' });
  // @ts-expect-error — payload lacks durationMs and version
  bus.emit('module:loaded', { id: 'A' });
  // @ts-expect-error — stdout chunks are strings
  bus.on('python:stdout', (p) => p.chunk.toFixed());
  // @ts-expect-error — a rollback says why
  bus.emit('change:rolled-back', { change: {} as ChangeRecord });
  // @ts-expect-error — a change whose gate still runs has no status yet
  bus.on('change:proposed', (p) => p.change.status);
  assert.equal(bus.history().length, 3); // emitted at run time anyway; the check above is the compiler's
});

test('dispose unsubscribes; onAny sees everything', () => {
  const bus = createEventBus();
  let n = 0;
  const types: string[] = [];
  const sub = bus.on('tool:started', () => n++);
  const any = bus.onAny((r) => types.push(r.type));
  bus.emit('tool:started', { callId: '1', name: 'x', caller: 'test' });
  sub.dispose();
  sub.dispose();
  bus.emit('tool:started', { callId: '2', name: 'x', caller: 'test' });
  bus.emit('workspace:deleted', { path: 'a' });
  any.dispose();
  assert.equal(n, 1);
  assert.deepEqual(types, ['tool:started', 'tool:started', 'workspace:deleted']);
  assert.equal(bus.listenerCount(), 0);
});

test('history is bounded, ordered, filterable and resizable', () => {
  const bus = createEventBus({ historySize: 3 });
  for (let i = 0; i < 5; i++) bus.emit('python:stdout', { runId: 'r', chunk: String(i) });
  bus.emit('workspace:deleted', { path: 'x' });
  assert.deepEqual(bus.history().map((r) => r.type), ['python:stdout', 'python:stdout', 'workspace:deleted']);
  assert.deepEqual(bus.history(['python:stdout']).map((r) => r.payload.chunk), ['3', '4']);
  bus.setHistorySize(1);
  assert.deepEqual(bus.history().map((r) => r.type), ['workspace:deleted']);
  bus.setHistorySize(0);
  bus.emit('workspace:deleted', { path: 'y' });
  assert.equal(bus.history().length, 0);
  assert.throws(() => createEventBus({ historySize: -1 }), /historySize must be a whole number >= 0, got -1/);
});

test('a scope disposes all its subscriptions with it and refuses to emit after', () => {
  const bus = createEventBus();
  const scope = bus.scope('Workspace');
  let calls = 0;
  scope.on('tool:finished', () => calls++);
  scope.onAny(() => calls++);
  const single = scope.on('module:loaded', () => calls++);
  single.dispose();
  assert.equal(scope.subscriptionCount, 2);
  assert.equal(bus.listenerCount(), 2);
  scope.dispose();
  assert.equal(bus.listenerCount(), 0);
  assert.equal(scope.subscriptionCount, 0);
  bus.emit('tool:finished', { callId: '1', name: 'x', caller: 'test', ok: true, durationMs: 1 });
  assert.equal(calls, 0);
  assert.throws(() => scope.emit('workspace:deleted', { path: 'a' }), /Workspace emitted workspace:deleted after its scope was disposed/);
  // Subscribing through a disposed scope leaves nothing behind.
  scope.on('module:loaded', () => calls++);
  assert.equal(bus.listenerCount(), 0);
});

test('declared events: validated at run time against their schema, in the history and onAny, never a typed handler', () => {
  const bus = createEventBus();
  const any: string[] = [];
  const seen: unknown[] = [];
  const typed: unknown[] = [];
  // An event of an upgrade's own map (here made-upgrades:status) declared by another owner whose
  // prefix nothing reserved: its emits reach onAny and onDeclared, never the typed handler.
  bus.on('made-upgrades:status', (p) => typed.push(p));
  const forger = bus.declareEvents('made-upgrades', [{ name: 'made-upgrades:status' }]);
  forger.emit('made-upgrades:status', { id: 'forged', status: 'running' });
  forger.dispose();
  assert.deepEqual(typed, []);
  assert.throws(() => bus.declareEvents('session', [{ name: 'session:ended' }]), /session/);
  bus.onAny((r) => any.push(`${r.type}${'declared' in r ? ' (declared)' : ''}`));
  bus.onDeclared('notes-index:counted', (p, r) => seen.push([p, r.owner]));
  const events = bus.declareEvents('notes-index', [
    { name: 'notes-index:counted', schema: { type: 'object', properties: { files: { type: 'integer', minimum: 0 } }, required: ['files'], additionalProperties: false } },
    { name: 'notes-index:reset' },
  ]);
  assert.deepEqual(events.names, ['notes-index:counted', 'notes-index:reset']);
  events.emit('notes-index:counted', { files: 3 });
  events.emit('notes-index:reset', ['anything', 1]);
  assert.throws(() => events.emit('notes-index:counted', { files: -1 }), (e: Error & { code?: string }) => e.code === 'INVALID_EVENT' && /\$\.files: /.test(e.message));
  assert.throws(() => events.emit('notes-index:counted', { files: 1, extra: true }), /INVALID_EVENT|does not fit/);
  assert.throws(() => events.emit('notes-index:other', {}), (e: Error & { code?: string; hint?: string }) => e.code === 'UNDECLARED_EVENT' && /notes-index:counted, notes-index:reset/.test(e.hint ?? ''));
  assert.throws(() => events.emit('notes-index:counted', { files: 1n }), /not JSON data/);
  assert.throws(() => events.emit('notes-index:reset', 'x'.repeat(70_000)), /at most 65536/);
  assert.deepEqual(seen, [[{ files: 3 }, 'notes-index']]);
  assert.deepEqual(any, ['notes-index:counted (declared)', 'notes-index:reset (declared)']);
  const last = bus.history().at(-1)!;
  assert.ok('declared' in last && last.owner === 'notes-index');
  events.dispose();
  assert.throws(() => events.emit('notes-index:counted', { files: 1 }), /EVENTS_WITHDRAWN|withdrawn/);
  assert.deepEqual(bus.declaredEvents(), []);
});

test('declarations are refused for the kernel\'s and the built-in upgrades\' prefixes, bad names and bad schemas', () => {
  const bus = createEventBus();
  bus.reserveEventPrefixes(['made-upgrades']);
  const scope = bus.scope('s');
  for (const source of [bus, scope]) assert.deepEqual(['workspace', 'made-upgrades', 'notes'].map((o) => source.isReservedOwner(o)), [true, true, false]);
  scope.dispose();
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return `${(e as { code?: string }).code}: ${(e as Error).message}`;
    }
    return 'no error';
  };
  assert.match(code(() => bus.declareEvents('workspace', [{ name: 'workspace:written' }])), /INVALID_EVENT_DECLARATION: .*belong to the system/);
  assert.match(code(() => bus.declareEvents('made-upgrades', [{ name: 'made-upgrades:status' }])), /belong to the system/);
  assert.match(code(() => bus.declareEvents('notes', [{ name: 'other:counted' }])), /is not "notes:<event>"/);
  assert.match(code(() => bus.declareEvents('notes', [{ name: 'notes:Counted' }])), /kebab-case event/);
  assert.match(code(() => bus.declareEvents('notes', [{ name: 'notes:a' }, { name: 'notes:a' }])), /declared twice/);
  assert.match(code(() => bus.declareEvents('notes', [{ name: 'notes:a', schema: { type: 'no-such-type' } }])), /not a usable JSON Schema/);
  assert.match(code(() => bus.declareEvents('Notes', [])), /not a kebab-case name/);
});

test('a new declaration by the same owner takes its names over; the old handle then emits nothing; a scope withdraws its declarations', () => {
  const bus = createEventBus();
  const v1 = bus.declareEvents('notes-index', [{ name: 'notes-index:counted' }]);
  const v2 = bus.declareEvents('notes-index', [{ name: 'notes-index:counted' }]);
  assert.throws(() => v1.emit('notes-index:counted', 1), /withdrawn/);
  v1.dispose();
  v2.emit('notes-index:counted', 2);
  assert.deepEqual(bus.declaredEvents(), [{ name: 'notes-index:counted', owner: 'notes-index' }]);
  v2.dispose();
  const scope = bus.scope('MadeUpgrades');
  scope.declareEvents('notes-index', [{ name: 'notes-index:counted' }]);
  scope.onDeclared('notes-index:counted', () => undefined);
  assert.equal(scope.subscriptionCount, 2);
  assert.equal(bus.listenerCount(), 1);
  scope.dispose();
  assert.deepEqual(bus.declaredEvents(), []);
  assert.equal(bus.listenerCount(), 0);
});

test('a listener that throws stops neither the emitter nor the others; its failure is reported once, naming its owner', async () => {
  const warnings: string[] = [];
  const bus = createEventBus({ warn: (m) => warnings.push(m) });
  const failures: { owner: string; event: string; message: string }[] = [];
  bus.on('system:listener-failed', (p) => failures.push({ owner: p.owner, event: p.event, message: p.error.message }));
  const scope = bus.scope('Broken');
  scope.on('tool:started', () => {
    throw new Error('boom');
  });
  // biome-ignore lint/nursery/noMisusedPromises: a listener whose promise rejects is what this test is about
  scope.onAny(async (r) => {
    if (r.type === 'workspace:deleted') throw new Error('async boom');
  });
  const seen: string[] = [];
  bus.on('tool:started', (p) => seen.push(p.callId));
  bus.onAny((r) => seen.push(`any:${r.type}`));
  for (const callId of ['1', '2', '3']) assert.doesNotThrow(() => bus.emit('tool:started', { callId, name: 'x', caller: 'test' }));
  bus.emit('workspace:deleted', { path: 'a' });
  bus.emit('workspace:deleted', { path: 'b' });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen.filter((s) => !s.startsWith('any:system')), ['1', 'any:tool:started', '2', 'any:tool:started', '3', 'any:tool:started', 'any:workspace:deleted', 'any:workspace:deleted']);
  assert.deepEqual(failures, [
    { owner: 'Broken', event: 'tool:started', message: 'Error: boom' },
    { owner: 'Broken', event: 'workspace:deleted', message: 'Error: async boom' },
  ]);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0]!, /a listener of Broken failed on tool:started: Error: boom/);
});

test('a listener of system:listener-failed that throws is logged, not reported again', () => {
  const warnings: string[] = [];
  const bus = createEventBus({ warn: (m) => warnings.push(m) });
  bus.on('system:listener-failed', () => {
    throw new Error('report listener broke');
  });
  bus.on('workspace:deleted', () => {
    throw new Error('first');
  });
  bus.emit('workspace:deleted', { path: 'a' });
  assert.equal(warnings.length, 2);
  assert.match(warnings[1]!, /a listener of \(bus\) failed on system:listener-failed: Error: report listener broke/);
  assert.equal(bus.history(['system:listener-failed']).length, 1);
});
