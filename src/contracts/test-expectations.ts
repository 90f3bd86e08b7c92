/**
 * How the outcome of one test of an agent-made change (a tool's, an upgrade's) is judged against
 * what the test expects: a value (the same JSON), an error (its code, or a part of its message),
 * or only success. Shared by every kind of change that runs tests.
 */
import type { ChangeTest } from './change-contract.ts';
import { errorLine, type ErrorInfo } from '../kernel/errors.ts';

/** What a test expects: a value, an error, or (neither) only success. */
export interface TestExpectation {
  args: unknown;
  expect?: unknown;
  expect_error?: string;
}

/** Compares one outcome with what its test expects. */
export function judge(t: TestExpectation, outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo }, ms: number): ChangeTest {
  const base = { args: t.args, ms };
  if (t.expect_error !== undefined) {
    if (outcome.ok) return { ...base, ok: false, value: outcome.value, error: { code: 'EXPECTED_ERROR', message: `expected an error matching ${JSON.stringify(t.expect_error)}, but it returned ${preview(outcome.value)}` } };
    const wanted = t.expect_error.toLowerCase();
    const matches = outcome.error.code.toLowerCase() === wanted || outcome.error.message.toLowerCase().includes(wanted);
    return matches
      ? { ...base, ok: true, error: outcome.error }
      : { ...base, ok: false, error: { code: 'WRONG_ERROR', message: `expected an error matching ${JSON.stringify(t.expect_error)}, got ${errorLine(outcome.error)}` } };
  }
  if (!outcome.ok) return { ...base, ok: false, error: outcome.error };
  if ('expect' in t && !sameValue(outcome.value, t.expect)) {
    return { ...base, ok: false, value: outcome.value, error: { code: 'UNEXPECTED_VALUE', message: `expected ${preview(t.expect)}, got ${preview(outcome.value)}` } };
  }
  return { ...base, ok: true, value: outcome.value };
}

/** Whether two values are the same JSON data (object key order ignored; `undefined` members are absent, as in JSON). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  // Python's None and a missing value both cross as null/undefined.
  return (a === null || a === undefined) && (b === null || b === undefined);
}

function preview(v: unknown): string {
  const json = JSON.stringify(v) ?? String(v);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
