import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { readManifests } from '../../src/kernel/manifests.ts';
import { nodeProjectFiles, projectRoot } from '../../src/platform/node.ts';
import { describeExecutePythonResult } from './result-shape.ts';
import { planPrompt, schemaChars } from './prompt.ts';

/** The real result sentence: its length is part of what the plan must fit. */
const RESULT = describeExecutePythonResult();

let manifestTools: ToolDeclaration[];
before(async () => {
  manifestTools = [...(await readManifests(nodeProjectFiles(projectRoot))).tools.values()];
});

/** A server's worth of tools with schemas the size real MCP servers have. */
function serverTools(ns: string, count: number): ToolDeclaration[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${ns}.tool_${i}`,
    namespace: ns,
    module: 'McpClient',
    pythonCallable: true,
    description: `Does thing ${i} in ${ns}. Use it when the task needs thing ${i}; it returns the result as structured content with every field described below.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The path to work on, relative to one of the allowed directories.' },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string', description: 'The name of the item' }, kind: { type: 'string', enum: ['a', 'b', 'c'] } }, required: ['name'] } },
        limit: { type: 'integer', minimum: 1, default: 10, description: 'At most this many results.' },
      },
      required: ['path'],
    },
  }));
}

test('within its allowance every namespace gets signatures; past it, cheaper namespaces are richer', () => {
  const full = planPrompt({ resultContract: RESULT, tools: manifestTools, personaName: 'Default agent', minChars: 100_000 });
  assert.equal(full.mode, 'python');
  assert.match(full.text, /^workspace: from tools\.workspace import delete_file, list_files, read_file, write_file$/m);
  assert.match(full.text, /^ {2}- read_file\(path, encoding="utf8"\) — Read a workspace file\.$/m);
  // The manifest tools Python cannot call are the model's own declarations.
  assert.deepEqual(full.nativeTools.sort(), manifestTools.filter((t) => !t.pythonCallable).map((t) => t.name).sort());
  assert.ok(full.nativeTools.includes('execute_python') && full.nativeTools.includes('create_tool'));
  assert.equal(full.stats.schemaChars, schemaChars(manifestTools.filter((t) => t.pythonCallable)));
  const plan = planPrompt({ resultContract: RESULT, tools: manifestTools, personaName: 'Default agent' });
  assert.equal(plan.mode, 'python-compact');
  assert.ok(plan.stats.promptChars <= 1200, JSON.stringify(plan.stats));
  assert.ok(Object.values(plan.stats.detail).every((d) => d !== 'count'), 'the built-in namespaces all fit by name at least');
  assert.match(plan.text, /^workspace: (from tools\.workspace import )?delete_file, list_files, read_file, write_file$/m);
  assert.match(plan.text, /`read_skill\(namespace\)` gives signatures and examples/);
});

test('with three servers’ worth of tools the fragment is at most 5% of their schemas', () => {
  const tools = [...manifestTools, ...serverTools('memory', 9), ...serverTools('filesystem', 14), ...serverTools('everything', 13)];
  const plan = planPrompt({ resultContract: RESULT, tools, personaName: 'Default agent' });
  assert.equal(plan.mode, 'python-compact');
  assert.ok(plan.stats.ratio <= 0.05, `ratio ${plan.stats.ratio}`);
  assert.doesNotMatch(plan.text, /tool_0\(path/);
  // A larger allowance shows more: every namespace by signature.
  assert.equal(planPrompt({ resultContract: RESULT, tools, personaName: 'Default agent', targetRatio: 1 }).mode, 'python');
});

test('a persona with few tools gets them listed directly: the fragment is never longer than their schemas', () => {
  const byName = new Map(manifestTools.map((t) => [t.name, t]));
  const small = planPrompt({ resultContract: RESULT, tools: [byName.get('execute_python')!, byName.get('list_files')!], personaName: 'Small' });
  assert.equal(small.mode, 'direct');
  assert.match(small.text, /Call these tools directly/);
  assert.match(small.text, /^- list_files — List workspace files with their sizes and modification times\.$/m);
  assert.deepEqual(small.nativeTools, ['execute_python', 'list_files']);
  assert.ok(small.stats.promptChars <= small.stats.schemaChars, JSON.stringify(small.stats));
  const tiny = planPrompt({ resultContract: RESULT, tools: [{ name: 'x', description: 'd', module: 'M', pythonCallable: true, inputSchema: { type: 'object' } }], personaName: 'A persona whose name is longer than the schema' });
  assert.equal(tiny.text, 'Tools: x.');
  assert.ok(tiny.stats.promptChars <= tiny.stats.schemaChars);
  // Every subset of the real tools, in every order of growth: never longer than what it covers.
  for (let n = 1; n <= manifestTools.length; n++) {
    for (const start of [0, 3, 6]) {
      const subset = [...manifestTools.slice(start), ...manifestTools.slice(0, start)].slice(0, n);
      const s = planPrompt({ resultContract: RESULT, tools: subset, personaName: 'Default agent' }).stats;
      assert.ok(s.promptChars <= s.schemaChars, `${subset.map((t) => t.name).join(',')}: ${JSON.stringify(s)}`);
    }
  }
});
