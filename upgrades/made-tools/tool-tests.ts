/**
 * Running a version's tests: each test's arguments are validated exactly as the ToolRunner would
 * validate a real call, then the code runs where it will run for real (the caller's `invoke`),
 * with its own time limit; the outcome is compared with what the test expects.
 */
import type { z } from 'zod';
import type { ChangeTest } from '../../src/kernel/change-contract.ts';
import { toErrorInfo, type ErrorInfo } from '../../src/kernel/errors.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';
import type { ToolTestSpec } from './tool-spec.ts';

/** Runs the code of a version once with validated arguments; rejects with the code's error. */
export type Invoke = (args: Record<string, unknown>) => Promise<unknown>;

/**
 * Runs `tests` one after another (a stuck test is stopped by `invoke`'s own time limit, and the
 * next one still runs). Never rejects.
 */
export async function runToolTests(tests: readonly ToolTestSpec[], validator: z.ZodType, invoke: Invoke): Promise<ChangeTest[]> {
  const out: ChangeTest[] = [];
  for (const t of tests) {
    const t0 = performance.now();
    let outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo };
    const parsed = validator.safeParse(t.args ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${formatJsonPath(i.path)}: ${i.message}`);
      outcome = { ok: false, error: { code: 'INVALID_ARGUMENTS', message: `the test's args do not fit input_schema: ${issues.join('; ')}` } };
    } else {
      try {
        outcome = { ok: true, value: await invoke(parsed.data as Record<string, unknown>) };
      } catch (e) {
        outcome = { ok: false, error: toErrorInfo(e, 'TOOL_FAILED') };
      }
    }
    out.push(judge(t, outcome, performance.now() - t0));
  }
  return out;
}

/** Compares one outcome with what its test expects. */
export function judge(t: ToolTestSpec, outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo }, ms: number): ChangeTest {
  const base = { args: t.args, ms };
  if (t.expect_error !== undefined) {
    if (outcome.ok) return { ...base, ok: false, value: outcome.value, error: { code: 'EXPECTED_ERROR', message: `expected an error matching ${JSON.stringify(t.expect_error)}, but it returned ${preview(outcome.value)}` } };
    const wanted = t.expect_error.toLowerCase();
    const matches = outcome.error.code.toLowerCase() === wanted || outcome.error.message.toLowerCase().includes(wanted);
    return matches
      ? { ...base, ok: true, error: outcome.error }
      : { ...base, ok: false, error: { code: 'WRONG_ERROR', message: `expected an error matching ${JSON.stringify(t.expect_error)}, got ${outcome.error.code}: ${outcome.error.message}` } };
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
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  // Python's None and a missing value both cross as null/undefined.
  return (a === null || a === undefined) && (b === null || b === undefined);
}

function preview(v: unknown): string {
  const json = JSON.stringify(v) ?? String(v);
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}
