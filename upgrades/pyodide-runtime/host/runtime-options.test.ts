import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPyodideRuntime } from '../runtime.ts';
import { RuntimeOptionError, resolveOptions } from './runtime-options.ts';

test('forcing JSPI where the engine lacks it is refused at creation, with the reason and what to use', () => {
  // Node 20 has no WebAssembly.Suspending; the refusal must come before any worker starts.
  if (typeof (WebAssembly as unknown as { Suspending?: unknown }).Suspending === 'function') {
    assert.equal(resolveOptions({ transport: 'jspi' }).transport, 'jspi', 'an engine with JSPI takes it');
    return;
  }
  let error: unknown;
  try {
    createPyodideRuntime({ transport: 'jspi' }, { emit: () => assert.fail('nothing may start') });
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof RuntimeOptionError, String(error));
  assert.equal(error.code, 'INVALID_RUNTIME_OPTION');
  assert.match(error.message, /^\[PyodideRuntime\] option transport "jspi": JSPI \(WebAssembly\.Suspending\) is not available in this Node \d+/);
  assert.match(error.hint ?? '', /Use 'auto' or 'shared-memory'/);
  assert.deepEqual(error.details, { option: 'transport', value: 'jspi' });
});

test('transports and snapshot modes the runtime does not know are refused; good ones pass', () => {
  assert.throws(() => resolveOptions({ transport: 'carrier-pigeon' as never }), /option transport "carrier-pigeon": it must be 'auto', 'shared-memory', 'jspi' or 'async'/);
  assert.equal(resolveOptions({ transport: 'shared-memory' }).transport, 'shared-memory');
  assert.equal(resolveOptions({ transport: 'async' }).transport, 'async');
  assert.equal(resolveOptions({}).snapshot, 'persist');
  assert.equal(resolveOptions({ memorySnapshot: false }).snapshot, 'off');
});
