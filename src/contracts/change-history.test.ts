import { test } from 'node:test';
import assert from 'node:assert/strict';
import { approvalHint, reportOf } from './change-history.ts';

test('a pending change built on others: the report and the hint say which come first; once decided, only the verdict', () => {
  const pending = { id: 'c9', status: 'pending' as const, outcome: '2 of 2 tests passed', requires: ['c7', 'c8'] };
  assert.equal(reportOf(pending), '2 of 2 tests passed; it builds on changes c7, c8, which must come into force first');
  assert.equal(approvalHint(pending), 'A person must approve change c9 (on the dashboard\'s Changes, or with "armature approve c9"), after c7, c8, which it builds on');
  assert.equal(reportOf({ ...pending, status: 'active' }), '2 of 2 tests passed');
  assert.equal(reportOf({ status: 'pending', requires: ['c1'] }), 'it builds on change c1, which must come into force first');
  assert.equal(reportOf({ status: 'rejected' }), undefined);
  assert.equal(approvalHint({ id: 'c3' }), 'A person must approve change c3 (on the dashboard\'s Changes, or with "armature approve c3")');
});
