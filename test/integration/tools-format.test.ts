// Every built-in and MCP-imported tool (the three reference servers, started for real), converted
// to every provider format, checked against each provider's published rules; and calls decoded
// back are accepted by the ToolRunner.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import { decodeToolCall, formatTools } from '../../src/tools-format/format-tools.ts';
import { TOOL_FORMATS } from '../../src/tools-format/tool-names.ts';
import { referenceServers } from '../helpers/mcp-servers.ts';
import { providerProblems } from '../helpers/provider-rules.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('tools-format');
let sys: ArmatureSystem;

before(async () => {
  sys = await boot({ dataDir: dir, config: { PyodideRuntime: { autoStart: false }, McpClient: { servers: referenceServers(dir) } } });
});
after(() => sys?.dispose());

test('every tool, every format, strict and not: within the provider’s rules', () => {
  const tools = sys.tools.getToolDeclarations();
  const served = tools.filter((t) => t.namespace).map((t) => t.name);
  // 36 of their own, those everything offers a client with sampling, elicitation and roots, and their resources and prompts as tools.
  assert.ok(served.length >= 36 + 3 && served.includes('everything.read_resource') && served.includes('everything.trigger-sampling-request'), served.join(' '));
  for (const format of TOOL_FORMATS) {
    for (const strict of format === 'gemini' || format === 'mcp' ? [false] : [false, true]) {
      const r = formatTools(tools, format, { strict });
      assert.equal(r.tools.length, tools.length);
      for (const decl of r.tools) assert.deepEqual(providerProblems(format, strict, decl), [], `${format}${strict ? ' strict' : ''}: ${JSON.stringify(decl).slice(0, 300)}`);
      if (format !== 'anthropic' || !strict) assert.deepEqual(r.warnings, [], `${format}${strict ? ' strict' : ''}`);
    }
  }
});

test('a strict call decoded back runs: nulls for absent options dropped, the alias mapped to the tool', async () => {
  const r = formatTools(sys.tools.getToolDeclarations(), 'openai', { strict: true });
  const fn = (name: string) => r.tools.find((t) => (t.function as { name: string }).name === name)!.function as { parameters: Record<string, any> };
  // list_directory_with_sizes has an optional sortBy with a default: strict mode makes it required and nullable.
  assert.deepEqual(fn('filesystem__list_directory_with_sizes').parameters.properties.sortBy.type, ['string', 'null']);
  // The filesystem server keeps to the workspace folder, the root the persona offers.
  const folder = (await sys.resolve<{ folder: string }>('Workspace')).folder;
  const call = decodeToolCall(r, 'filesystem__list_directory_with_sizes', JSON.stringify({ path: folder, sortBy: null }));
  assert.deepEqual(call, { name: 'filesystem.list_directory_with_sizes', arguments: { path: folder } });
  const result = await sys.tools.executeTool(call.name, call.arguments);
  assert.equal(result.ok, true, JSON.stringify(result));
  const g = formatTools(sys.tools.getToolDeclarations(), 'gemini');
  const sum = decodeToolCall(g, 'everything.get-sum', { a: 1, b: 2 });
  assert.deepEqual((await sys.tools.executeTool(sum.name, sum.arguments)).ok, true);
});
