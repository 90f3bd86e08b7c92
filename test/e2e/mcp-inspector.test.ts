// `armature mcp` driven by the MCP Inspector's own CLI, over stdio and over HTTP: listing tools
// (with its schema-portability check), calling execute_python, resources, prompts with
// arguments, completion-backed templates, logging/setLevel, and the HTTP server's refusals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect, NODE_22 } from '../helpers/inspector.ts';
import { startMcpHttpChild, type McpHttpChild } from '../helpers/mcp-http-child.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const dir = tempDir('mcp-inspector');
/** One data folder for every stdio run: the Python snapshot the first makes starts the next ones sooner. */
const stdio = (args: string[]) => inspect([process.execPath, bin, 'mcp', '--data', join(dir, 'stdio'), ...args]);
let http: McpHttpChild;

before(async () => {
  http = await startMcpHttpChild([], { data: join(dir, 'http') });
});
after(() => http?.stop());

test('the Inspector runs on the Node 22 it needs', () => {
  assert.match(execFileSync(NODE_22, ['--version'], { encoding: 'utf8' }), /^v22\./);
});

for (const [transport, run] of [
  ['stdio', stdio],
  ['http', (args: string[]) => inspect([http.url, '--transport', 'http', ...args])],
] as const) {
  test(`${transport}: tools/list passes the Inspector's portability check with no errors; tools/call runs Python`, async () => {
    const listed = await run(['--method', 'tools/list', '--strict']);
    assert.equal(listed.code, 0, listed.stderr.slice(-2000));
    assert.match(listed.stderr, /\b0 errors\b/);
    const tools = (listed.json!.tools as { name: string; outputSchema?: unknown }[]).map((t) => t.name);
    assert.ok(tools.includes('execute_python') && tools.includes('run_agent'), tools.join(' '));
    const called = await run(['--method', 'tools/call', '--tool-name', 'execute_python', '--tool-arg', 'code=sum(range(10))']);
    assert.equal(called.code, 0, called.stderr.slice(-2000));
    assert.equal((called.json!.structuredContent as { value: number }).value, 45);
  });

  test(`${transport}: resources, prompts with arguments and logging/setLevel`, async () => {
    const resources = await run(['--method', 'resources/templates/list']);
    assert.deepEqual((resources.json!.resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate), ['armature://skills/{namespace}', 'armature://workspace/{+path}']);
    const skill = await run(['--method', 'resources/read', '--uri', 'armature://skills/workspace']);
    assert.match(String((skill.json!.contents as { text: string }[])[0]!.text), /^# Skill: workspace/);
    const prompt = await run(['--method', 'prompts/get', '--prompt-name', 'use-armature', '--prompt-args', 'task=count the files']);
    assert.match(JSON.stringify(prompt.json), /Task: count the files/);
    const missing = await run(['--method', 'prompts/get', '--prompt-name', 'use-armature']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr + missing.stdout, /prompt use-armature needs arguments\.task/);
    const level = await run(['--method', 'logging/setLevel', '--log-level', 'error']);
    assert.equal(level.code, 0, level.stderr.slice(-1000));
  });
}

test('http: the Inspector sending a foreign Origin is refused with 403', async () => {
  const refused = await inspect([http.url, '--transport', 'http', '--header', 'Origin: http://evil.example', '--method', 'tools/list']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr + refused.stdout, /403|Origin "http:\/\/evil\.example" is not allowed/);
});
