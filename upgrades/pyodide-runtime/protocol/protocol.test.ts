import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHostMessage, parseWorkerMessage } from './protocol.ts';

test('a well-formed execute is accepted as is by the quick check', () => {
  const msg = { type: 'execute', id: 'run-1', runId: 'py-1', code: '1 + 1' };
  const r = parseHostMessage(msg);
  assert.equal(r.ok && r.value, msg);
});

test('a malformed execute still gets the full schema and an error naming the field', () => {
  const cases: [unknown, RegExp][] = [
    [{ type: 'execute', id: 'run-1', runId: 'py-1', code: 42 }, /^invalid execute message: code: .*string/],
    [{ type: 'execute', id: '', runId: 'py-1', code: '1' }, /^invalid execute message: id: /],
    [{ type: 'execute', id: 'run-1', code: '1' }, /^invalid execute message: runId: /],
    [{ type: 'exec', id: 'x' }, /^invalid exec message: type: /],
    [null, /^invalid object message/],
  ];
  for (const [msg, pattern] of cases) {
    const r = parseHostMessage(msg);
    assert.equal(r.ok, false, JSON.stringify(msg));
    assert.match(!r.ok ? r.error : '', pattern);
  }
});

test('a successful response and output-ready pass the quick check; anything else the schema', () => {
  const ok = { type: 'response', id: 'run-1', ok: true, value: { any: ['thing'] } };
  assert.equal((parseWorkerMessage(ok) as { value: unknown }).value, ok);
  assert.equal(parseWorkerMessage({ type: 'output-ready', id: 'output', full: true }).ok, true);
  const failed = parseWorkerMessage({ type: 'response', id: 'run-2', ok: false, error: { type: 'ValueError', message: 'bad', traceback: '' } });
  assert.equal(failed.ok, true);
  const cases: [unknown, RegExp][] = [
    [{ type: 'response', id: 'run-2', ok: false, error: { type: 'ValueError' } }, /^invalid response message: error\.message: /],
    [{ type: 'response', ok: true, value: 1 }, /^invalid response message: id: /],
    [{ type: 'response', id: 'r', ok: 'yes', value: 1 }, /^invalid response message: /],
    [{ type: 'output-ready', id: 'output', full: 'please' }, /^invalid output-ready message: full: /],
    [{ type: 'progress', id: 'init', stage: 'dance', percent: 5 }, /^invalid progress message: stage: /],
  ];
  for (const [msg, pattern] of cases) {
    const r = parseWorkerMessage(msg);
    assert.equal(r.ok, false, JSON.stringify(msg));
    assert.match(!r.ok ? r.error : '', pattern);
  }
});
