import { test } from 'node:test';
import assert from 'node:assert/strict';
import { didYouMean, kebabCase, nearMadeTools, nearMadeUpgrades } from './made-names.ts';

test('kebabCase: the id an agent-made upgrade of a name has', () => {
  assert.deepEqual(['CallCounter', 'call_counter', 'Call Counter', 'HTMLReport', 'notes-index', 'X'].map(kebabCase), ['call-counter', 'call-counter', 'call-counter', 'html-report', 'notes-index', 'x']);
});

test('a refused name gets the name the system made of it: an upgrade by its kebab-case spelling, a tool by its own name', () => {
  assert.deepEqual(nearMadeUpgrades('CallCounter', ['call-counter', 'notes-index']), ['call-counter']);
  assert.deepEqual(nearMadeUpgrades('notes-indx', ['call-counter', 'notes-index']), ['notes-index']);
  assert.deepEqual(nearMadeUpgrades('x', []), []);
  const made = ['call_counter.count_up', 'made.word_count', 'notes_index.notes_summary'];
  assert.deepEqual(nearMadeTools('count_up', made), ['call_counter.count_up']);
  assert.deepEqual(nearMadeTools('made.count_up', made), ['call_counter.count_up']);
  assert.deepEqual(nearMadeTools('word_cont', made), ['made.word_count']);
  assert.deepEqual(nearMadeTools('CallCounter.*', made), ['call_counter.*']);
  assert.deepEqual(nearMadeTools('call_counter.*', made), []);
  assert.equal(didYouMean(['call_counter.count_up']), '; did you mean "call_counter.count_up"?');
  assert.equal(didYouMean([]), '');
});
