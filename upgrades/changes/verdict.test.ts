import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trimTest, verdictOf } from './verdict.ts';

test('a verdict names the problems, the lack of tests, or the first failing tests; none when all passed', () => {
  assert.equal(verdictOf(['name is bad.', 'code is empty.'], []), 'name is bad. code is empty.');
  assert.match(verdictOf([], [])!, /has no tests/);
  const ok = { args: { a: 1 }, ok: true, ms: 1 };
  const bad = (i: number) => ({ args: { i }, ok: false, ms: 1, error: { code: 'E', message: `no ${i}` } });
  assert.equal(verdictOf([], [ok]), undefined);
  assert.equal(verdictOf([], [ok, bad(1)]), '1 of 2 tests failed: {"i":1} -> E: no 1');
  assert.equal(verdictOf([], [bad(1), bad(2), bad(3), bad(4)])!.split(';').length, 3, 'the first three are quoted');
  const timedOut = { args: { text: 'x' }, ok: false, ms: 5000, error: { code: 'TimeoutError', message: 'TimeoutError: the run did not finish within 5000 ms' } };
  assert.equal(verdictOf([], [{ args: { a: 2 }, ok: false, ms: 1, value: 3 }]), '1 of 1 test failed: {"a":2} -> failed, returning 3');
  assert.equal(verdictOf([], [{ args: {}, ok: false, ms: 1 }]), '1 of 1 test failed: {} -> failed (no error was recorded)');
  assert.equal(verdictOf([], [timedOut]), '1 of 1 test failed: {"text":"x"} -> TimeoutError: the run did not finish within 5000 ms', 'a Python error type is said once');
});

test('a huge test value is cut in the record, saying how much was left out', () => {
  const t = trimTest({ args: {}, ok: true, ms: 1, value: 'x'.repeat(10_000) }, 100);
  assert.match(String(t.value), /^"x{99}… \[9902 more characters of JSON\]$/);
  const small = { args: {}, ok: true, ms: 1, value: { a: 1 } };
  assert.equal(trimTest(small, 100), small);
});
