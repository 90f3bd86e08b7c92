import { test } from 'node:test';
import assert from 'node:assert/strict';
import { declarationsOf, staticProblems, toUpgradeContent, type MadeUpgradeContent } from './upgrade-spec.ts';

const persona = { id: 'builder', tools: ['*'], denyTools: ['delete_file'] };
const args = {
  id: 'notes-index',
  blueprint: '0xA00001',
  code: 'export default { init() {}, tools: { notes_summary() {} } };',
  tools: [{ name: 'notes_index.notes_summary', description: 'Counts.', inputSchema: { type: 'object' } }],
  events: [{ name: 'counted' }, { name: 'notes-index:reset' }],
  tests: [{ name: 'shape', tool: 'notes_index.notes_summary', args: {} }],
};

test('arguments become a version: tool names lose their namespace, events gain the id, the creator\'s allow-list is kept', () => {
  const c = toUpgradeContent(args, persona);
  assert.deepEqual(c.tools.map((t) => t.name), ['notes_summary']);
  assert.deepEqual(c.events.map((e) => e.name), ['notes-index:counted', 'notes-index:reset']);
  assert.equal(c.tests[0]!.tool, 'notes_summary');
  assert.deepEqual(c.dependencies, []);
  assert.deepEqual(c.persona, persona);
  assert.deepEqual(staticProblems(c), []);
  // update_upgrade: what is left out comes from the version before.
  const next = toUpgradeContent({ id: 'notes-index', code: 'export default { init() {} };' }, persona, c);
  assert.equal(next.blueprint, '0xA00001');
  assert.deepEqual(next.tests, c.tests);
  assert.throws(() => toUpgradeContent({ ...args, id: 'NotesIndex' }, persona), (e: Error & { code?: string; hint?: string }) => e.code === 'INVALID_UPGRADE_ID' && /kebab-case/.test(e.hint ?? ''));
  // The id to write instead, the rule and why it holds.
  assert.throws(
    () => toUpgradeContent({ ...args, id: 'CallCounter' }, persona),
    (e: Error & { hint?: string }) =>
      /"CallCounter" is not an agent-made upgrade id; did you mean "call-counter"\?: agent-made upgrade ids are kebab-case.* so they never collide with the built-in upgrades, whose ids are PascalCase/.test(e.message) && /call_counter\.<tool>/.test(e.hint!),
  );
  assert.throws(() => toUpgradeContent({ id: 'x-y' }, persona), /\[made-upgrades\] (tests|blueprint) is missing/);
});

test('static problems name the field and the fix', () => {
  const c = toUpgradeContent(args, persona);
  const with_ = (over: Partial<MadeUpgradeContent>) => staticProblems({ ...c, ...over }).join(' | ');
  assert.match(with_({ code: ' ' }), /code is empty/);
  assert.match(with_({ blueprint: 'notes' }), /not a blueprint id/);
  assert.match(with_({ dependencies: ['notes-index'] }), /cannot depend on itself/);
  assert.match(with_({ tools: [{ name: 'Bad Name', description: 'x', inputSchema: { type: 'object' } } as never] }), /tools\[0\]: \$\.name: a tool name in snake_case/);
  assert.match(with_({ events: [{ name: 'other:counted' }] }), /events\[0\]\.name "other:counted" is not "notes-index:<event>"/);
  assert.match(with_({ events: [{ name: 'notes-index:counted', schema: 'number' as never }] }), /events\[0\]\.schema of notes-index:counted must be a JSON Schema object/);
  assert.match(with_({ events: [{ name: 'notes-index:counted', schema: { type: 'no-such-type' } }] }), /events\[0\]\.schema of notes-index:counted is not a usable JSON Schema/);
  assert.match(with_({ events: [{ name: 'notes-index:counted' }, { name: 'notes-index:counted' }] }), /event notes-index:counted is declared twice/);
  // Every event problem at once: a bad name does not hide a bad schema or a duplicate behind it.
  assert.deepEqual(
    staticProblems({ ...c, events: [{ name: 'other:counted' }, { name: 'notes-index:a', schema: { type: 'no-such-type' } }, { name: 'notes-index:b' }, { name: 'notes-index:b' }] }).map((p) => p.slice(0, 40)),
    ['events[0].name "other:counted" is not "n', 'events[1].schema of notes-index:a is not', 'event notes-index:b is declared twice.'],
  );
  assert.match(with_({ widget: { title: '', category: 'nowhere' as never } }), /widget\.title .* widget\.category "nowhere" is not one of/);
  assert.match(with_({ tests: [{ name: 'a', tool: 'missing', args: {} }, { name: 'a', tool: 'notes_summary', args: [] as never }] }), /tests\[0\]\.tool "missing" is not one of its tools \(notes_summary\).*tests\[1\]\.name a is used twice.*tests\[1\]\.args must be an object/);
  assert.match(with_({ tests: [{ name: 'a', tool: 'notes_summary', args: {}, expect: 1, expect_error: 'X' }] }), /both expect and expect_error/);
});

test('declarations are namespaced by the id and implemented by MadeUpgrades', () => {
  const [d] = declarationsOf(toUpgradeContent(args, persona), 30_000);
  assert.deepEqual([d!.name, d!.namespace, d!.module, d!.pythonCallable, d!.timeoutMs], ['notes_index.notes_summary', 'notes_index', 'MadeUpgrades', true, 30_000]);
});
