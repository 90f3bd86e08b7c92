import { test } from 'node:test';
import assert from 'node:assert/strict';
import { personaAllows } from './allow-list.ts';

test('an allow-list grants by name, "*" and "<namespace>.*"; a deny list takes back, the same way', () => {
  const p = { tools: ['*'], denyTools: ['delete_file', 'memory.*'] };
  assert.equal(personaAllows(p, 'read_file'), true);
  assert.equal(personaAllows(p, 'delete_file'), false);
  assert.equal(personaAllows(p, 'memory.read_graph'), false);
  assert.equal(personaAllows(p, 'notes_index.notes_summary'), true);
  assert.equal(personaAllows({ tools: ['notes_index.*'] }, 'notes_index.notes_summary'), true);
  assert.equal(personaAllows({ tools: ['read_file'] }, 'write_file'), false);
  assert.equal(personaAllows({ tools: ['*'], denyTools: ['*'] }, 'read_file'), false);
});
