/**
 * How a gate's report becomes a verdict: any static problem, no tests at all, or any failing test
 * rejects a version, said in one sentence that quotes the first failures; how a test's value
 * is kept in a record without letting one huge value swell the lineage; and the order versions
 * that depend on each other come back in.
 */
import type { ChangeTest } from '../../src/contracts/change-contract.ts';
import { errorLine } from '../../src/kernel/errors.ts';

/** Why a version with these problems and tests is rejected, or `undefined` when it passed. */
export function verdictOf(problems: readonly string[], tests: readonly ChangeTest[]): string | undefined {
  if (problems.length) return problems.join(' ');
  if (!tests.length) return 'it has no tests: every version must bring at least one test ({ args, expect? } or { args, expect_error }) that passes';
  const failed = tests.filter((t) => !t.ok);
  if (!failed.length) return undefined;
  const shown = failed.slice(0, 3).map((t) => `${JSON.stringify(t.args)?.slice(0, 80)} -> ${t.error ? errorLine({ code: t.error.code, message: t.error.message.slice(0, 200) }) : failedWithout(t)}`);
  return `${failed.length} of ${tests.length} test${tests.length === 1 ? '' : 's'} failed: ${shown.join('; ')}`;
}

/** A failed test that carries no error (a gate always gives one; a record from elsewhere may not). */
function failedWithout(t: ChangeTest): string {
  return 'value' in t ? `failed, returning ${JSON.stringify(t.value)?.slice(0, 80) ?? 'undefined'}` : 'failed (no error was recorded)';
}

/** `t` with its value cut to `maxChars` characters of JSON (saying how much was left out). */
export function trimTest(t: ChangeTest, maxChars: number): ChangeTest {
  if (!('value' in t)) return t;
  const json = JSON.stringify(t.value) ?? 'null';
  return json.length <= maxChars ? t : { ...t, value: `${json.slice(0, maxChars)}… [${json.length - maxChars} more characters of JSON]` };
}

