// Generated modules are compiled and called in real Python (Pyodide), against a recording bridge.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadPyodide, type PyodideInterface } from 'pyodide';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { readManifests } from '../../src/kernel/manifests.ts';
import { nodeProjectFiles, projectRoot } from '../../src/platform/node.ts';
import {
  generatePythonModule,
  generateSkillDoc,
  generateSkillIndex,
  groupByNamespace,
  namespaceOf,
  signatureOf,
} from './codegen.ts';
import { generateSystemPrompt, planPrompt } from './prompt.ts';

let py: PyodideInterface;
let manifestTools: ToolDeclaration[];

const odd: ToolDeclaration = {
  name: 'odd_tool',
  description: 'Has awkward parameter names. Second sentence.',
  module: 'OddThings',
  pythonCallable: true,
  inputSchema: {
    type: 'object',
    properties: {
      class: { type: 'string', description: 'a keyword' },
      'max-count': { type: 'integer', default: 10 },
      tags: { type: 'array', items: { type: 'string' } },
      flag: { type: 'boolean', default: false },
      note: { type: 'string', description: 'has """ quotes and \\ backslash' },
    },
    required: ['class'],
  },
};

/** Tools registered at run time under a namespace, named as their MCP server names them. */
const namespaced: ToolDeclaration[] = [
  { name: 'memory.create_entities', namespace: 'memory', description: 'Create entities. In the graph.', module: 'McpClient', pythonCallable: true, inputSchema: { type: 'object', properties: { entities: { type: 'array', items: { type: 'object' } } }, required: ['entities'] } },
  { name: 'everything.get-sum', namespace: 'everything', description: 'Sum.', module: 'McpClient', pythonCallable: true, inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
  { name: 'everything.get_sum', namespace: 'everything', description: 'Another sum.', module: 'McpClient', pythonCallable: true, inputSchema: { type: 'object' } },
  { name: 'everything.import', namespace: 'everything', description: 'A keyword.', module: 'McpClient', pythonCallable: true, inputSchema: { type: 'object' } },
];

before(async () => {
  py = await loadPyodide();
  manifestTools = [...(await readManifests(nodeProjectFiles(projectRoot))).tools.values()];
  // A recording stand-in for the real bridge (the bridge itself is tested end to end elsewhere).
  py.FS.mkdirTree('/gen/tools');
  py.FS.writeFile('/gen/armature_bridge.py', 'calls = []\ndef call_tool(name, args=None, instance_id=None):\n    calls.append((name, args, instance_id))\n    return {"called": name}\n');
  py.FS.writeFile('/gen/tools/__init__.py', '');
  for (const [ns, list] of groupByNamespace([...manifestTools, odd, ...namespaced])) py.FS.writeFile(`/gen/tools/${ns}.py`, generatePythonModule(ns, list));
  py.runPython('import sys; sys.path.insert(0, "/gen")');
});

test('namespaces come from the implementing module', () => {
  assert.equal(namespaceOf('Workspace'), 'workspace');
  assert.equal(namespaceOf('PythonTool'), 'python');
  assert.equal(namespaceOf('PyodideRuntime'), 'pyodide_runtime');
  assert.deepEqual([...groupByNamespace(manifestTools).keys()].filter((n) => ['workspace', 'blueprints'].includes(n)), ['blueprints', 'workspace']);
});

test('every manifest namespace imports, with real signatures, defaults and docstrings', () => {
  const out = py.runPython(`
import inspect, importlib
from tools.workspace import read_file, write_file
res = (str(inspect.signature(read_file)), str(inspect.signature(write_file)), read_file.__doc__.splitlines()[0])
res`).toJs();
  assert.deepEqual(out, [
    "(path: str, encoding: str | None = 'utf8', *, instance_id: str | None = None) -> Any",
    "(path: str, content: str, encoding: str | None = 'utf8', *, instance_id: str | None = None) -> Any",
    'Read a workspace file. Text comes back as UTF-8; use encoding "base64" for binary files.',
  ]);
  for (const ns of groupByNamespace(manifestTools).keys()) py.runPython(`import tools.${ns}`);
});

test('calls send required args, defaults, and omit optional args left at None', () => {
  const calls = py.runPython(`
import armature_bridge
armature_bridge.calls.clear()
from tools.workspace import read_file, list_files
read_file("a.txt")
read_file(path="b.bin", encoding="base64")
list_files()
repr(armature_bridge.calls)`);
  assert.equal(calls, "[('read_file', {'path': 'a.txt', 'encoding': 'utf8'}, None), ('read_file', {'path': 'b.bin', 'encoding': 'base64'}, None), ('list_files', {}, None)]");
});

test('unknown or missing keyword arguments are rejected by Python itself', () => {
  const err = py.runPython(`
from tools.workspace import read_file
msgs = []
for f in (lambda: read_file(pth="x"), lambda: read_file()):
    try:
        f()
    except TypeError as e:
        msgs.append(str(e))
msgs`).toJs();
  assert.match(err[0], /unexpected keyword argument 'pth'/);
  assert.match(err[1], /missing 1 required positional argument: 'path'/);
});

test('awkward names become valid identifiers and still send the original JSON names', () => {
  assert.equal(signatureOf(odd), 'odd_tool(class_, max_count=10, tags=None, flag=False, note=None)');
  const calls = py.runPython(`
import armature_bridge
armature_bridge.calls.clear()
from tools.odd_things import odd_tool
odd_tool("c", max_count=3, flag=True)
assert '"""' in odd_tool.__doc__ and '\\\\' in odd_tool.__doc__
repr(armature_bridge.calls)`);
  assert.equal(calls, "[('odd_tool', {'class': 'c', 'max-count': 3, 'flag': True}, None)]");
});

test('skill index, SKILL.md and the system prompt are generated from the same manifests', () => {
  const index = generateSkillIndex(manifestTools);
  assert.match(index, /^workspace: from tools\.workspace import delete_file, list_files, read_file, write_file$/m);
  assert.match(index, /^ {2}- read_file\(path, encoding="utf8"\) — Read a workspace file\.$/m);
  const doc = generateSkillDoc('workspace', groupByNamespace(manifestTools).get('workspace')!);
  assert.match(doc, /## write_file\(path, content, encoding="utf8"\)/);
  assert.match(doc, /result = write_file\(path="notes\/example\.txt", content="content"\)/);
  const prompt = generateSystemPrompt({ tools: manifestTools, personaName: 'Tester', resultContract: 'THE RESULT SENTENCE.' });
  for (const needle of ['call_tool(', 'from tools.', 'execute_python', 'at most twice', 'never paste data into code', 'read_skill', 'THE RESULT SENTENCE.'])
    assert.ok(prompt.includes(needle), `prompt lacks ${needle}`);
});

test('namespaced tools: modules by namespace, identifiers from their own names, calls by their full names', () => {
  const calls = py.runPython(`
import armature_bridge, inspect
armature_bridge.calls.clear()
from tools.memory import create_entities
from tools.everything import get_sum, get_sum_2, import_
create_entities([{"name": "Ada"}])
get_sum_2(1, 2)
get_sum()
import_()
[repr(armature_bridge.calls), str(inspect.signature(get_sum_2)), create_entities.__doc__.splitlines()[0]]`).toJs();
  assert.deepEqual(calls, [
    "[('memory.create_entities', {'entities': [{'name': 'Ada'}]}, None), ('everything.get-sum', {'a': 1, 'b': 2}, None), ('everything.get_sum', {}, None), ('everything.import', {}, None)]",
    '(a: float, b: float, *, instance_id: str | None = None) -> Any',
    'Create entities. In the graph.',
  ]);
  const index = generateSkillIndex(namespaced);
  assert.match(index, /^everything: from tools\.everything import get_sum, get_sum_2, import_$/m);
  assert.match(index, /^ {2}- get_sum_2\(a, b\) — Sum\.$/m);
  const doc = generateSkillDoc('everything', groupByNamespace(namespaced).get('everything')!);
  assert.match(doc, /## get_sum_2\(a, b\)\n\nSum\.\n\nTool name: `everything\.get-sum` \(for `call_tool`\)\./);
  assert.match(doc, /from tools\.everything import get_sum_2\n\nresult = get_sum_2\(a=1\.0, b=1\.0\)/);
});

test('the prompt mentions only tools the persona may call', () => {
  const allowed = manifestTools.filter((t) => t.name !== 'read_skill');
  const withoutSkills = planPrompt({ tools: allowed, personaName: 'T', allowed: allowed.map((t) => t.name), resultContract: 'R.' }).text;
  assert.doesNotMatch(withoutSkills, /read_skill/);
  const reader = manifestTools.filter((t) => ['read_file', 'list_files'].includes(t.name));
  const noPython = planPrompt({ tools: reader, personaName: 'Reader', allowed: ['read_file', 'list_files'], resultContract: 'R.' });
  assert.equal(noPython.mode, 'direct');
  assert.doesNotMatch(noPython.text, /execute_python|read_skill|call_tool/);
  assert.match(noPython.text, /list_files/);
});

test("an agent-made tool's function is a call_tool wrapper like any other: its code never runs in the caller's interpreter", () => {
  const made: ToolDeclaration = {
    name: 'made.word_count',
    namespace: 'made',
    description: 'Count words.',
    module: 'MadeTools',
    pythonCallable: true,
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, min_len: { type: 'integer' } }, required: ['text'] },
  };
  py.FS.writeFile('/gen/tools/made.py', generatePythonModule('made', [made]));
  const out = py.runPython(`
import armature_bridge, inspect, sys
sys.modules.pop("tools.made", None)
armature_bridge.calls.clear()
from tools.made import word_count
res = [word_count("a bb ccc"), word_count(text="a bb", min_len=2), str(inspect.signature(word_count)), repr(armature_bridge.calls)]
res`).toJs();
  assert.deepEqual(out, [
    { called: 'made.word_count' },
    { called: 'made.word_count' },
    '(text: str, min_len: int | None = None, *, instance_id: str | None = None) -> Any',
    "[('made.word_count', {'text': 'a bb ccc'}, None), ('made.word_count', {'text': 'a bb', 'min_len': 2}, None)]",
  ]);
});
