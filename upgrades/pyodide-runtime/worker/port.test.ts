import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isFatal, jsError } from './port.ts';

/** The shape of Pyodide's PythonError: `type` is the Python class, `message` the whole traceback. */
function pythonError(type: string, text: string): Error & { type: string } {
  return Object.assign(new Error(text), { name: 'PythonError', type });
}

test('a Python exception that escaped the runner keeps its type and last line, never Armature frames', () => {
  const tb = 'Traceback (most recent call last):\n  File "/armature/lib/armature_runner.py", line 78, in run\n    _flush()\n  File "/lib/python313.zip/_pyodide/_base.py", line 357, in run\nKeyboardInterrupt\n';
  assert.deepEqual(jsError(pythonError('KeyboardInterrupt', tb)), { type: 'KeyboardInterrupt', message: '', traceback: '' });
  const withText = jsError(pythonError('ValueError', 'Traceback (most recent call last):\n  File "/armature/lib/armature_runner.py", line 1\nValueError: bad value\n'));
  assert.deepEqual(withText, { type: 'ValueError', message: 'bad value', traceback: '' });
});

test('JavaScript errors keep their message; fatal ones are recognised', () => {
  assert.deepEqual(jsError(new TypeError('x is not a function')), { type: 'RuntimeError', message: 'x is not a function', traceback: '' });
  assert.equal(jsError('plain').message, 'plain');
  assert.equal(isFatal(new Error('RuntimeError: memory access out of bounds')), true);
  assert.equal(isFatal(new Error('ordinary')), false);
});
