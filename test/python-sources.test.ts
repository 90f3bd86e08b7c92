// The Python Armature ships lives in `.py` files (imported as text by the builds and by the
// sources' module hook). Each is compiled here by a real interpreter, so a syntax error fails at
// once instead of at the first start of a worker; and the constants the bridge spells out in
// Python must be the ones the TypeScript side uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import { MAX_NAME_LENGTH } from '../src/kernel/bounded.ts';
import { BRIDGE_MODULE, RUNNER_MODULE, TOOL_STATUS } from '../upgrades/pyodide-runtime/python/python-prelude.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every `.py` file below `dir` (what the package ships lives in src/ and upgrades/). */
function pythonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : pythonFiles(path);
    return name.endsWith('.py') ? [path] : [];
  });
}

let py: Promise<PyodideInterface> | undefined;
const python = () => (py ??= loadPyodide());

test('every shipped .py file compiles in Pyodide', async () => {
  const files = [...pythonFiles(join(root, 'src')), ...pythonFiles(join(root, 'upgrades'))].map((f) => relative(root, f));
  // A walk that found nothing would pass anything: the worker's two modules must be among them.
  for (const known of ['upgrades/pyodide-runtime/python/armature_bridge.py', 'upgrades/pyodide-runtime/python/armature_runner.py']) {
    assert.ok(files.includes(known), `${known} not found among ${files.join(', ')}`);
  }
  const interpreter = await python();
  // None when the file compiles, else "line N: message" from Python's own SyntaxError.
  const compile = interpreter.runPython(`
def _compile(source, name):
    try:
        compile(source, name, "exec")
    except SyntaxError as e:
        return f"line {e.lineno}: {e.msg}: {(e.text or '').strip()}"
_compile`);
  const failures: string[] = [];
  for (const file of files) {
    const problem = compile(readFileSync(join(root, file), 'utf8'), file) as string | undefined;
    if (problem) failures.push(`${file} ${problem}`);
  }
  compile.destroy();
  assert.deepEqual(failures, [], `Python that does not compile:\n${failures.join('\n')}`);
});

test('the imported text is the file itself, and the bridge agrees with the host on its constants', async () => {
  assert.equal(BRIDGE_MODULE, readFileSync(join(root, 'upgrades/pyodide-runtime/python/armature_bridge.py'), 'utf8'));
  assert.equal(RUNNER_MODULE, readFileSync(join(root, 'upgrades/pyodide-runtime/python/armature_runner.py'), 'utf8'));
  const interpreter = await python();
  const bridge = interpreter.runPython('lambda source: (lambda ns: (exec(source, ns), [ns["_MAX_NAME"], ns["_OK"], ns["_INTERRUPTED"]])[1])({"__name__": "armature_bridge"})');
  const values = bridge(BRIDGE_MODULE);
  bridge.destroy();
  assert.deepEqual(values.toJs(), [MAX_NAME_LENGTH, TOOL_STATUS.ok, TOOL_STATUS.interrupted], 'armature_bridge.py: _MAX_NAME, _OK, _INTERRUPTED vs MAX_NAME_LENGTH, TOOL_STATUS.ok, TOOL_STATUS.interrupted');
  values.destroy();
});
