import { test } from 'node:test';
import assert from 'node:assert/strict';
import { offeredTools, toModelResult } from './offered-tools.ts';

test('tool results reach the model as { ok, value } or { ok: false, error, hint }; execute_python as its prompt says', () => {
  assert.deepEqual(toModelResult('read_file', { ok: true, value: { content: 'x', skip: undefined }, durationMs: 3 }), { ok: true, value: { content: 'x' } });
  assert.deepEqual(toModelResult('read_file', { ok: false, error: { code: 'FILE_NOT_FOUND', message: 'no' }, hint: 'list', durationMs: 1 }), { ok: false, error: { code: 'FILE_NOT_FOUND', message: 'no' }, hint: 'list' });
  assert.deepEqual(toModelResult('execute_python', { ok: true, value: { value: 3, stdout: 'hi\n', stderr: '', executionTime: 5 }, durationMs: 6 }), {
    ok: true,
    value: { value: 3, stdout: 'hi\n', stderr: '', executionTime: 5 },
  });
  assert.deepEqual(
    toModelResult('execute_python', { ok: false, error: { code: 'ValueError', message: 'bad', details: { traceback: 'Traceback...', stdout: 'partial' } }, hint: 'fix', durationMs: 6 }),
    { ok: false, error: { code: 'ValueError', message: 'bad', details: { traceback: 'Traceback...', stdout: 'partial' } }, hint: 'fix' },
  );
});

test('a huge result is cut with a note instead of flooding the context', () => {
  const r = toModelResult('read_file', { ok: true, value: 'x'.repeat(50_000), durationMs: 1 }, 1000);
  assert.equal(r.truncated, true);
  assert.equal((r.partial as string).length, 1000);
  assert.match(r.note as string, /only the first 1000 are shown/);
});

test('code mode offers execute_python, the skill tools and the tools Python cannot call; direct mode offers all', () => {
  const d = (name: string, pythonCallable = true) => ({ name, description: `${name}.`, module: 'M', pythonCallable, inputSchema: { type: 'object' as const } });
  const persona = { id: 'p', name: 'P', description: 'd', upgrades: ['ToolRunner'], tools: ['*'], skills: [] };
  const allowed = [d('read_file'), d('execute_python', false), d('list_skills'), d('read_skill'), d('create_tool', false)];
  assert.deepEqual(offeredTools('code', allowed, persona).map((t) => t.name), ['execute_python', 'list_skills', 'read_skill', 'create_tool']);
  assert.deepEqual(offeredTools('direct', allowed, persona).map((t) => t.name), ['read_file', 'execute_python', 'list_skills', 'read_skill', 'create_tool']);
  assert.throws(() => offeredTools('code', [d('create_tool', false)], persona), /CODE_MODE_NEEDS_PYTHON|execute_python is not available/);
});
