/**
 * Running a version's tests: each test's arguments are validated exactly as the ToolRunner would
 * validate a real call, then the code runs where it will run for real (the caller's `invoke`),
 * with its own time limit; the outcome is compared with what the test expects.
 */
import type * as z from 'zod';
import type { ChangeTest } from '../../src/contracts/change-contract.ts';
import { toErrorInfo, type ErrorInfo } from '../../src/kernel/errors.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';
import { judge } from '../../src/contracts/test-expectations.ts';

export { judge, sameValue } from '../../src/contracts/test-expectations.ts';
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
