import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffStats, lineDiff } from './line-diff.ts';

test('a changed line shows as removed then added, in place', () => {
  const rows = lineDiff('def f(x):\n    return x\n', 'def f(x):\n    return x * 2\n');
  assert.deepEqual(rows, [
    { op: 'same', text: 'def f(x):' },
    { op: 'del', text: '    return x' },
    { op: 'add', text: '    return x * 2' },
  ]);
  assert.deepEqual(diffStats(rows), { added: 1, removed: 1 });
});

test('identical texts have no added or removed lines; an empty "before" is all additions', () => {
  assert.deepEqual(diffStats(lineDiff('a\nb\n', 'a\nb\n')), { added: 0, removed: 0 });
  assert.deepEqual(lineDiff('', 'a\nb'), [{ op: 'add', text: 'a' }, { op: 'add', text: 'b' }]);
});

test('long unchanged stretches fold to their context lines', () => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
  const after = before.replace('line 15', 'LINE 15');
  const rows = lineDiff(before, after);
  assert.deepEqual(rows.slice(0, 2), [{ op: 'fold', count: 12 }, { op: 'same', text: 'line 12' }]);
  assert.deepEqual(rows.filter((r) => r.op !== 'same' && r.op !== 'fold'), [{ op: 'del', text: 'line 15' }, { op: 'add', text: 'LINE 15' }]);
  assert.deepEqual(rows.at(-1), { op: 'fold', count: 11 });
  assert.equal(rows.length, 1 + 3 + 2 + 3 + 1, 'fold, 3 context, the change, 3 context, fold');
});
