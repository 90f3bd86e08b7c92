import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStatus, initialStatus, MAX_LOG_LINES } from './status.ts';

test('a status update replaces what it names and appends its log lines, bounded', () => {
  let s = applyStatus(initialStatus(), { state: 'active', primary: '3 files', table: { columns: ['folder', 'files'], rows: [['notes', 3]] }, log: 'indexed' }, ['notes_summary'], 1);
  assert.deepEqual([s.state, s.primary, s.secondary, s.table?.rows, s.log, s.updatedAt], ['active', '3 files', '', [['notes', 3]], [{ at: 1, text: 'indexed' }], 1]);
  s = applyStatus(s, { secondary: '1 folder', table: null, message: 'hello' }, ['notes_summary'], 2);
  assert.deepEqual([s.primary, s.secondary, s.table, s.message], ['3 files', '1 folder', undefined, 'hello']);
  for (let i = 0; i < MAX_LOG_LINES + 5; i++) s = applyStatus(s, { log: [`line ${i}`] }, [], 3);
  assert.equal(s.log.length, MAX_LOG_LINES);
  assert.equal(s.log.at(-1)!.text, `line ${MAX_LOG_LINES + 4}`);
  assert.deepEqual(applyStatus(s, { message: '' }, []).message, undefined);
});

test('an invalid update is refused, naming the field; a button calls only the upgrade\'s own tools', () => {
  const s = initialStatus();
  assert.throws(() => applyStatus(s, { state: 'exploded' }, []), /INVALID_STATUS|\$\.state/);
  assert.throws(() => applyStatus(s, { html: '<b>x</b>' }, []), /Unrecognized key: "html"/);
  assert.throws(() => applyStatus(s, { primary: 'x'.repeat(500) }, []), /\$\.primary/);
  assert.throws(() => applyStatus(s, { table: { columns: ['a'], rows: Array.from({ length: 21 }, () => ['x']) } }, []), /\$\.table\.rows/);
  assert.throws(() => applyStatus(s, { buttons: [{ label: 'Wipe', tool: 'delete_file' }] }, ['notes_summary']), /button "Wipe" calls "delete_file", which is not one of its tools \(notes_summary\)/);
  assert.equal(applyStatus(s, { buttons: [{ label: 'Sum', tool: 'notes_summary', args: { folder: 'x' } }] }, ['notes_summary']).buttons.length, 1);
});
