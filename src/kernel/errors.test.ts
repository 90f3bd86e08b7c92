import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorLine } from './errors.ts';

test('an error line puts the code first, once', () => {
  assert.equal(errorLine({ code: 'UNKNOWN_TOOL', message: 'no tool named "x"' }), 'UNKNOWN_TOOL: no tool named "x"');
  // A Python error's message starts with its type, which is its code.
  assert.equal(errorLine({ code: 'ZeroDivisionError', message: 'ZeroDivisionError: division by zero' }), 'ZeroDivisionError: division by zero');
  // Only the whole code followed by ": " counts as already said.
  assert.equal(errorLine({ code: 'Error', message: 'ErrorCode: x' }), 'Error: ErrorCode: x');
});
