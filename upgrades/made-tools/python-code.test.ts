// The Python side of agent-made tools in real Pyodide: version modules side by side, the one
// expression a host call runs, and what it says when the code is not what a tool must be.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { invokeCode, versionFiles, versionModule } from './python-code.ts';

let py: PyodideInterface;
const v1 = 'a'.repeat(64);
const v2 = 'b'.repeat(64);

before(async () => {
  py = await loadPyodide();
  py.FS.mkdirTree('/lib/armature_made');
  for (const f of versionFiles([
    { hash: v1, code: 'def echo(text, n=1):\n    return {"text": text * n}\n' },
    { hash: v2, code: 'def echo(text, n=1):\n    return {"text": text.upper()}\n\nasync def later():\n    return 1\n' },
  ]))
    py.FS.writeFile(`/lib/${f.path}`, f.source);
  py.runPython('import sys; sys.path.insert(0, "/lib")');
});

test('two versions of one tool live side by side, each its own module', () => {
  assert.equal(versionModule(v1), 'v_aaaaaaaaaaaaaaaa');
  assert.deepEqual(py.runPython(invokeCode(v1, 'echo', { text: 'ab', n: 2 })).toJs({ dict_converter: Object.fromEntries }), { text: 'abab' });
  assert.deepEqual(py.runPython(invokeCode(v2, 'echo', { text: 'ab' })).toJs({ dict_converter: Object.fromEntries }), { text: 'AB' });
});

test('arguments of any text arrive intact, and the call leaves no globals behind', () => {
  const tricky = 'quotes " \' and \\ backslash, newline\n, tab\t, unicode ✓ 𝄞, line sep \u2028, """triple"""';
  const before = py.runPython('sorted(globals().keys())').toJs();
  assert.equal(py.runPython(invokeCode(v1, 'echo', { text: tricky })).toJs({ dict_converter: Object.fromEntries }).text, tricky);
  assert.deepEqual(py.runPython('sorted(globals().keys())').toJs(), before);
});

test('a missing function or an async one is named with the fix', () => {
  assert.throws(() => py.runPython(invokeCode(v1, 'nothing', {})), /defines no function nothing\(\): define def nothing\(\.\.\.\)/);
  assert.throws(() => py.runPython(invokeCode(v2, 'later', {})), /later\(\) is a coroutine function: define it with def, not async def/);
});
