import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checklistProblems, sectionProblems, tickProven, verificationChecklist } from './checklist.ts';

const body = [
  '# Notes Index',
  '## 1. Objective',
  'Count notes.',
  '## 2. Design',
  '```md',
  '## Verification (inside a code fence: not a heading)',
  '- not an item',
  '```',
  '## 4. Verification',
  '- [ ] counts files by folder (test: counts-by-folder)',
  '- [x] refuses a bad folder (TEST: bad_folder)',
  '  - a nested note is not an item',
  '* a plain bullet is an item too',
  '## 5. Extension points',
  '- not in the checklist (test: nope)',
].join('\n');

test('the verification checklist: top-level bullets of the section, with the test each names', () => {
  assert.deepEqual(verificationChecklist(body), [
    { text: 'counts files by folder (test: counts-by-folder)', line: 10, test: 'counts-by-folder' },
    { text: 'refuses a bad folder (TEST: bad_folder)', line: 11, test: 'bad_folder' },
    { text: 'a plain bullet is an item too', line: 13 },
  ]);
  assert.deepEqual(checklistProblems(verificationChecklist(body)), ['checklist item on line 13 ("a plain bullet is an item too") names no test: end it with (test: NAME), the name of the test that proves it.']);
  assert.deepEqual(verificationChecklist('# No sections'), []);
});

test('the house sections are required, and the verification section needs a checklist', () => {
  assert.deepEqual(sectionProblems(body), []);
  assert.deepEqual(sectionProblems('## Objective\nx\n## Architecture\ny\n## Verification\n- works (test: t)'), []);
  const missing = sectionProblems('## Objective\nonly this');
  assert.equal(missing.length, 2);
  assert.match(missing[0]!, /no design section: add a heading such as "## 2\. Design"/);
  assert.match(missing[1]!, /no verification section/);
  assert.match(sectionProblems('## Objective\n## Design\n## Verification\nNo list.')[0]!, /has no checklist/);
  assert.match(checklistProblems([{ text: 'x (test: a/b)', line: 3, test: 'a/b' }])[0]!, /a test name is letters/);
});

test('items whose test passed are ticked; the rest, and bullets outside the checklist, stay as written', () => {
  const ticked = tickProven(body, new Set(['counts-by-folder', 'nope']));
  const lines = ticked.split('\n');
  assert.equal(lines[9], '- [x] counts files by folder (test: counts-by-folder)');
  assert.equal(lines[10], '- [x] refuses a bad folder (TEST: bad_folder)', 'already ticked');
  assert.equal(lines[14], '- not in the checklist (test: nope)');
  assert.equal(ticked.replace('[x] counts', '[ ] counts'), body, 'nothing else changed');
  assert.equal(tickProven(body, new Set()), body);
});
