import assert from 'node:assert/strict';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';

/** The value of a successful tool result; fails the test with the whole result otherwise. */
export function value<T>(r: ToolResult<T>): T {
  assert.ok(r.ok, `expected ok, got ${JSON.stringify(r)}`);
  return r.value;
}
