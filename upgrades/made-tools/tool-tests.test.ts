import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { compileInputSchema } from '../../src/kernel/json-schema/tool-schema.ts';
import { runToolTests, sameValue } from './tool-tests.ts';

const validator = compileInputSchema({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false });
const double = async (args: Record<string, unknown>) => {
  if ((args.n as number) < 0) throw new ArmatureError('ValueError', 'ValueError: n must not be negative');
  return { twice: (args.n as number) * 2, tags: ['a', 'b'] };
};

test('each test passes or fails on what it expects: a value, an error, or plain success', async () => {
  const report = await runToolTests(
    [
      { args: { n: 2 }, expect: { tags: ['a', 'b'], twice: 4 } },
      { args: { n: 2 }, expect: { twice: 5, tags: ['a', 'b'] } },
      { args: { n: -1 }, expect_error: 'ValueError' },
      { args: { n: -1 }, expect_error: 'must not be NEGATIVE' },
      { args: { n: 1 }, expect_error: 'ValueError' },
      { args: { n: -1 }, expect_error: 'KeyError' },
      { args: { n: 3 } },
      { args: { n: -3 } },
      { args: { n: 'x' } },
      { args: { n: 'x' }, expect_error: 'INVALID_ARGUMENTS' },
    ],
    validator,
    double,
  );
  assert.deepEqual(report.map((t) => t.ok), [true, false, true, true, false, false, true, false, false, true]);
  assert.equal(report[1]!.error!.code, 'UNEXPECTED_VALUE');
  assert.match(report[1]!.error!.message, /expected \{"twice":5,"tags":\["a","b"\]\}, got/);
  assert.equal(report[4]!.error!.code, 'EXPECTED_ERROR');
  assert.equal(report[5]!.error!.code, 'WRONG_ERROR');
  assert.equal(report[8]!.error!.code, 'INVALID_ARGUMENTS', 'arguments are checked as the ToolRunner checks them');
  assert.ok(report.every((t) => typeof t.ms === 'number' && t.ms >= 0));
});

test('JSON sameness ignores key order and undefined members; None and undefined are alike', () => {
  assert.ok(sameValue({ a: 1, b: [1, { c: null }], d: undefined }, { b: [1, { c: null }], a: 1 }));
  assert.ok(sameValue(null, undefined));
  assert.ok(!sameValue([1, 2], [2, 1]));
  assert.ok(!sameValue({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!sameValue(1, '1'));
  assert.ok(sameValue(3, 3.0));
});
