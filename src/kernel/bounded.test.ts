import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TIMER_MS, clip, nameProblem, quote, timeoutProblem, timerMs } from './bounded.ts';

test('quote and clip cut long values and say how long they were', () => {
  assert.equal(quote('abc'), '"abc"');
  assert.equal(quote('x'.repeat(10_000_000), 4), '"xxxx"… (10000000 characters)');
  assert.equal(quote({}), 'a object');
  assert.equal(clip('abcdef', 3), 'abc… [3 more characters]');
});

test('nameProblem refuses what cannot be a name before any costly work', () => {
  assert.equal(nameProblem('read_file'), undefined);
  assert.match(nameProblem('x'.repeat(10 * 1024 * 1024))!, /at most 128/);
  assert.match(nameProblem('a\nb')!, /control/);
  assert.match(nameProblem(42)!, /not a string/);
});

test('timeoutProblem takes 1 to 2^31-1 ms and names the value and the range otherwise', () => {
  for (const ok of [1, 1.5, 30_000, MAX_TIMER_MS]) assert.equal(timeoutProblem(ok, 'timeout_ms'), undefined, String(ok));
  for (const bad of [0, -1, MAX_TIMER_MS + 1, 2 ** 53, Number.NaN, Infinity, '100', null]) {
    assert.match(timeoutProblem(bad, 'timeout_ms')!, /^timeout_ms .* is out of range: it must be 1 to 2147483647 ms/, String(bad));
  }
  assert.equal(timerMs(2 ** 40), MAX_TIMER_MS);
});
