import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import { publicEvent } from './public-events.ts';

const rec = (type: string, payload: unknown, extra: Record<string, unknown> = {}) => ({ type, payload, at: 1, seq: 1, ...extra }) as AnyEventRecord;

test('public events carry only what is not private; agent runs, Python output and the upgrade\'s own doings are never delivered', () => {
  assert.deepEqual(publicEvent(rec('workspace:written', { path: 'notes/a.md', size: 3, mtime: 9 }), 'me'), { name: 'workspace:written', payload: { path: 'notes/a.md', size: 3, mtime: 9 } });
  assert.deepEqual(publicEvent(rec('tool:finished', { callId: 'c1', name: 'read_file', caller: 'agent', ok: false, durationMs: 2, error: { code: 'FILE_NOT_FOUND', message: 'secret/path.txt is missing' } }), 'me'), {
    name: 'tool:finished',
    payload: { name: 'read_file', caller: 'agent', ok: false, durationMs: 2, code: 'FILE_NOT_FOUND' },
  });
  assert.equal(publicEvent(rec('tool:finished', { callId: 'c2', name: 'x', caller: 'upgrade:me', ok: true, durationMs: 1 }), 'me'), undefined);
  assert.deepEqual(publicEvent(rec('module:failed', { id: 'upgrade:x', parent: 'MadeUpgrades', error: { code: 'E', message: 'details' }, durationMs: 1 }), 'me')!.payload, { id: 'upgrade:x', parent: 'MadeUpgrades', code: 'E' });
  for (const t of ['agent:run-started', 'agent:text-delta', 'python:stdout', 'tool:started', 'widget:action', 'change:pending']) assert.equal(publicEvent(rec(t, { chunk: 'x' }), 'me'), undefined, t);
  assert.deepEqual(publicEvent(rec('other:counted', { n: 1 }, { owner: 'other', declared: true }), 'me'), { name: 'other:counted', payload: { n: 1 } });
  assert.equal(publicEvent(rec('me:counted', { n: 1 }, { owner: 'me', declared: true }), 'me'), undefined);
});
