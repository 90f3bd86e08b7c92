import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { checkNotShadowing, declarationOf, fullToolName, staticProblems, toContent, type MadeToolContent } from './tool-spec.ts';

const decl = (name: string, module: string, namespace?: string): ToolDeclaration => ({ name, module, description: 'd', pythonCallable: true, inputSchema: { type: 'object' }, ...(namespace ? { namespace } : {}) });
const builtIns = [decl('read_file', 'Workspace'), decl('memory.read_graph', 'McpClient', 'memory'), decl('made.mine', 'MadeTools', 'made')];

const content = (over: Partial<MadeToolContent> = {}): MadeToolContent => ({
  name: 'made.echo',
  description: 'Echo.',
  input_schema: { type: 'object', properties: { x: { type: 'string' } } },
  language: 'javascript',
  code: 'export default (a) => a;',
  tests: [{ args: { x: 'a' }, expect: { x: 'a' } }],
  persona: { id: 'p', tools: ['*'] },
  ...over,
});

test('names: snake_case, in made unless a namespace is given; keywords and other shapes are refused with a fix', () => {
  assert.equal(fullToolName('word_count'), 'made.word_count');
  assert.equal(fullToolName('text.word_count'), 'text.word_count');
  for (const bad of ['WordCount', 'a.b.c', '', 'x-y', '9lives', 'import', 'made.class', 42]) {
    assert.throws(() => fullToolName(bad), (e: Error & { code: string; hint?: string }) => e.code === 'INVALID_TOOL_NAME' && /snake_case/.test(e.hint!), String(bad));
  }
  // The snake_case spelling of a name, when it is one, and why names are snake_case.
  assert.throws(() => fullToolName('WordCount'), (e: Error & { hint?: string }) => /did you mean "word_count"\?/.test(e.message) && /each is a Python function too/.test(e.hint!));
  assert.throws(() => fullToolName('text.WordCount'), /did you mean "text\.word_count"\?/);
});

test('a name must not shadow a built-in tool or take a built-in namespace; other agent-made names are free', () => {
  assert.throws(() => checkNotShadowing('made.read_file', builtIns), (e: Error & { code: string }) => e.code === 'TOOL_NAME_TAKEN' && /shadow the built-in tool read_file \(from Workspace\)/.test(e.message));
  assert.throws(() => checkNotShadowing('made.read_graph', builtIns), /shadow the built-in tool memory\.read_graph/);
  assert.throws(() => checkNotShadowing('memory.notes', builtIns), /namespace "memory" belongs to built-in tools \(McpClient\)/);
  assert.throws(() => checkNotShadowing('workspace.grep', [...builtIns, decl('list_files', 'Workspace')]), /namespace "workspace"/);
  checkNotShadowing('made.mine', builtIns);
  checkNotShadowing('text.count', builtIns);
});

test('static problems name the offending field and a fix; a good version has none', () => {
  assert.deepEqual(staticProblems(content(), ['python', 'javascript']), []);
  const bad = staticProblems(
    content({ description: ' ', language: 'ruby' as never, code: '', input_schema: { type: 'array' }, tests: [{ args: [] as never }, { args: {}, expect: 1, expect_error: 'x' }, { args: {}, expect_error: 3 as never }] }),
    ['python', 'javascript'],
  );
  assert.equal(bad.length, 7, bad.join('\n'));
  assert.match(bad.join('\n'), /description is empty/);
  assert.match(bad.join('\n'), /language "ruby"/);
  assert.match(bad.join('\n'), /"type": "object"/);
  assert.match(bad.join('\n'), /tests\[1\] has both expect and expect_error/);
  assert.match(staticProblems(content({ input_schema: { type: 'object', properties: { x: { type: 'nonsense' } } } }), ['javascript']).join(), /not a usable JSON Schema/);
  assert.match(staticProblems(content({ language: 'python' }), ['javascript']).join(), /cannot run python tools \(it does not load PythonTool\)/);
});

test('update_tool keeps what it does not give from the version before; the creator\'s allow-list is recorded', () => {
  const base = content();
  const next = toContent({ name: 'echo', code: 'export default () => 1;' }, { id: 'maker', tools: ['made.*', 'read_file'] }, base);
  assert.equal(next.name, 'made.echo');
  assert.equal(next.code, 'export default () => 1;');
  assert.equal(next.description, base.description);
  assert.deepEqual(next.tests, base.tests);
  assert.deepEqual(next.persona, { id: 'maker', tools: ['made.*', 'read_file'] });
  assert.throws(() => toContent({ name: 'echo' }, { id: 'p', tools: [] }), /code is missing|description is missing|is missing/);
  const d = declarationOf(next, 30_000);
  assert.deepEqual([d.name, d.namespace, d.module, d.pythonCallable, d.timeoutMs], ['made.echo', 'made', 'MadeTools', true, 30_000]);
});
