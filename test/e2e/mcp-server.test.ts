// `armature mcp` as any MCP client uses it: the official SDK client drives the real bin over stdio
// and over streamable HTTP — tools with schemas and annotations, execute_python calling tools with
// its output streamed, a `while True` cancelled and the next run working, resources, the prompt, a
// reference server behind Armature killed and restarted. Every structured result is checked
// against its tool's outputSchema by the SDK client itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { referenceServers } from '../helpers/mcp-servers.ts';
import { startMcpHttpChild, type McpHttpChild } from '../helpers/mcp-http-child.ts';
import { connectStdioClient } from '../helpers/mcp-stdio-client.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { buildWheel } from '../helpers/wheel.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const dir = tempDir('mcp-e2e');
const mcpConfig = join(dir, 'mcp.json');
writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { memory: referenceServers(dir).memory } }));

let stdio: Client;
let http: Client;
let httpServer: McpHttpChild;
/** What each server wrote to its stdout and stderr (its logs). */
const logs = { stdio: '', http: '' };

before(async () => {
  stdio = await connectStdioClient(['--mcp-config', mcpConfig], { data: join(dir, 'data'), cwd: dir, stderr: (t) => (logs.stdio += t) });
  httpServer = await startMcpHttpChild([], { cwd: dir, log: (t) => (logs.http += t) });
  http = new Client({ name: 'armature-test', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(httpServer.url)));
});

after(async () => {
  await stdio?.close();
  await http?.close();
  await httpServer?.stop();
});

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

for (const [transport, client] of [['stdio', () => stdio], ['http', () => http]] as const) {
  test(`${transport}: tools come with input and output schemas and read-only/destructive annotations; instructions carry the prompt`, async () => {
    const { tools } = await client().listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const py = byName.get('execute_python')!;
    assert.deepEqual(py.inputSchema.required, ['code']);
    assert.deepEqual(py.outputSchema?.required, ['value', 'stdout', 'stderr', 'executionTime']);
    assert.deepEqual(byName.get('read_file')!.annotations, { readOnlyHint: true });
    assert.deepEqual(byName.get('write_file')!.annotations, { readOnlyHint: false, destructiveHint: true });
    assert.match(client().getInstructions() ?? '', /call `execute_python` with code/);
    assert.equal(client().getServerVersion()?.name, 'armature');
    if (transport === 'stdio') {
      assert.equal(byName.get('memory.create_entities')?.annotations?.readOnlyHint, false, 'a reference server’s tools are served again, with its annotations');
      assert.ok(byName.get('memory.read_graph')?.outputSchema);
    }
  });

  test(`${transport}: execute_python calls tools from Python, streams its output while it runs, returns a structured result`, async () => {
    const events: string[] = [];
    client().setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      events.push(`log:${n.params.logger}:${String(n.params.data).trim()}`);
    });
    const code = [
      'import sys, time',
      'print("first")',
      't = time.time()',
      'while time.time() - t < 0.3: pass',
      'print("warn", file=sys.stderr)',
      'call_tool("write_file", {"path": "from-mcp.txt", "content": "hi"})',
      'from tools.workspace import read_file',
      'read_file("from-mcp.txt")["content"] * 2',
    ].join('\n');
    const pending = client().callTool({ name: 'execute_python', arguments: { code } }, undefined, { onprogress: (p) => events.push(`progress:${p.progress}`) });
    const r = (await pending) as CallToolResult;
    events.push('result');
    assert.equal(r.isError, undefined, text(r));
    assert.deepEqual({ ...(r.structuredContent as object), executionTime: 0 }, { value: 'hihi', stdout: 'first\n', stderr: 'warn\n', executionTime: 0 });
    assert.deepEqual(JSON.parse(text(r)).value, 'hihi');
    assert.deepEqual(events.filter((e) => e.startsWith('log')), ['log:python.stdout:first', 'log:python.stderr:warn']);
    assert.ok(events.indexOf('log:python.stdout:first') < events.indexOf('result'));
    assert.ok(events.includes('progress:1') && events.indexOf('progress:1') < events.indexOf('result'), events.join(' '));
  });

  test(`${transport}: cancelling a while True interrupts it; the next run works and globals survive`, async () => {
    await client().callTool({ name: 'execute_python', arguments: { code: `kept = "${transport}"` } });
    const controller = new AbortController();
    const loop = client().callTool({ name: 'execute_python', arguments: { code: 'while True: pass' } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('enough'), 800);
    await assert.rejects(loop, /enough|abort/i);
    const next = (await client().callTool({ name: 'execute_python', arguments: { code: 'kept + "!"' } })) as CallToolResult;
    assert.deepEqual((next.structuredContent as { value: unknown }).value, `${transport}!`);
  });

  test(`${transport}: errors are isError results with the code, traceback and hint, and the structured error in _meta`, async () => {
    const py = (await client().callTool({ name: 'execute_python', arguments: { code: '1/0' } })) as CallToolResult;
    assert.equal(py.isError, true);
    assert.match(text(py), /^ZeroDivisionError: division by zero\n[\s\S]*Traceback/);
    assert.equal((py._meta?.['armature/error'] as { code: string } | undefined)?.code, 'ZeroDivisionError');
    const unknown = (await client().callTool({ name: 'wirte_file', arguments: {} })) as CallToolResult;
    assert.match(text(unknown), /^UNKNOWN_TOOL: \[executeTool\] no tool named "wirte_file"; did you mean "write_file"\?\nhint: Call write_file instead\.$/);
  });

  test(`${transport}: a 10 MB request is refused by its size; a 1 MB tool name, called directly or from Python, by its length; the server never logs either whole and keeps serving`, async () => {
    const notes: string[] = [];
    client().setNotificationHandler(LoggingMessageNotificationSchema, (n) => void notes.push(String(n.params.data)));
    // Over 4 MiB, the transport refuses the message (stdio as over HTTP), naming its size and the limit.
    const tooBig = await client().callTool({ name: 'x'.repeat(10 * 1024 * 1024), arguments: {} }).then((r) => assert.fail(JSON.stringify(r).slice(0, 300)), (e: Error) => e);
    assert.match(tooBig.message, transport === 'stdio' ? /the message is 104858\d\d bytes; messages have at most 4194304 bytes/ : /Payload Too Large: Request body must not exceed 4194304 bytes/);
    assert.ok(tooBig.message.length < 1000, `${tooBig.message.length} characters`);
    const huge = 'x'.repeat(1024 * 1024);
    const direct = (await client().callTool({ name: huge, arguments: {} })) as CallToolResult;
    assert.equal(direct.isError, true);
    assert.match(text(direct), /^INVALID_TOOL_NAME: .* \(1048576 characters\): names have at most 128 characters/);
    assert.ok(text(direct).length < 1000, `${text(direct).length} characters`);
    const py = (await client().callTool({ name: 'execute_python', arguments: { code: 'try:\n    call_tool("x" * (10 * 1024 * 1024), {})\nexcept Exception as e:\n    r = type(e).__name__ + ": " + str(e)[:200]\nr' } })) as CallToolResult;
    assert.notEqual(py.isError, true, text(py));
    assert.match(text(py), /at most 128 characters; this one has 10485760/);
    assert.ok(text(py).length < 2000);
    // A prompt or resource named by it is refused as unknown, quoting a bounded piece.
    for (const ask of [() => client().getPrompt({ name: huge }), () => client().readResource({ uri: `armature://workspace/${huge}` }), () => client().readResource({ uri: `armature://skills/${huge}` })]) {
      const e = await ask().then(() => assert.fail('refused'), (e: Error) => e);
      assert.ok(e.message.length < 1000, `${e.message.length} characters`);
      assert.match(e.message, /104857\d characters/);
    }
    await new Promise((r) => setTimeout(r, 200));
    const tooMuch = 'x'.repeat(4096);
    assert.ok(!notes.some((n) => n.includes(tooMuch)), 'no log notification carries it');
    assert.ok(!logs[transport].includes(tooMuch), `the server's own output carries no long name (${logs[transport].length} characters written)`);
    const after = (await client().callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
    assert.notEqual(after.isError, true, text(after));
  });

  test(`${transport}: skills and workspace files are resources; the system prompt is a prompt`, async () => {
    await client().callTool({ name: 'write_file', arguments: { path: 'notes/a b.md', content: '# Notes' } });
    const { resources } = await client().listResources();
    assert.ok(resources.some((r) => r.uri === 'armature://skills/workspace' && r.mimeType === 'text/markdown'));
    const file = resources.find((r) => r.name === 'notes/a b.md')!;
    assert.equal(file.uri, 'armature://workspace/notes/a%20b.md');
    const read = await client().readResource({ uri: file.uri });
    assert.deepEqual(read.contents, [{ uri: file.uri, mimeType: 'text/markdown', text: '# Notes' }]);
    const skill = await client().readResource({ uri: 'armature://skills/workspace' });
    assert.match(String((skill.contents[0] as { text: string }).text), /^# Skill: workspace/);
    await assert.rejects(client().readResource({ uri: 'armature://workspace/nope.txt' }), /no workspace file "nope\.txt"/);
    const { resourceTemplates } = await client().listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['armature://skills/{namespace}', 'armature://workspace/{+path}']);
    const { prompts } = await client().listPrompts();
    assert.deepEqual(prompts.slice(0, 2).map((p) => p.name), ['armature-system-prompt', 'use-armature']);
    assert.ok(prompts.some((p) => p.name === 'skill-workspace'), 'a prompt per skill');
    const prompt = await client().getPrompt({ name: 'armature-system-prompt' });
    assert.match(String((prompt.messages[0]!.content as { text: string }).text), /retry — at most twice/);
  });
}

test('HTTP: two MCP sessions each have their own Python globals, kept across their calls', async () => {
  const second = new Client({ name: 'armature-test-2', version: '1.0.0' });
  await second.connect(new StreamableHTTPClientTransport(new URL(httpServer.url)));
  try {
    const run = async (c: Client, code: string) => {
      const r = (await c.callTool({ name: 'execute_python', arguments: { code } })) as CallToolResult;
      assert.notEqual(r.isError, true, text(r));
      return (r.structuredContent as { value: unknown }).value;
    };
    await run(http, 'who = "first client"');
    await run(second, 'who = "second client"');
    assert.equal(await run(http, 'who'), 'first client');
    assert.equal(await run(second, 'who'), 'second client');
    const unset = (await second.callTool({ name: 'execute_python', arguments: { code: 'kept' } })) as CallToolResult;
    assert.equal(unset.isError, true, 'what the first client kept is not in the second one\'s globals');
    assert.match(text(unset), /NameError/);
  } finally {
    await second.close();
  }
});

test('every built-in tool’s result matches its declared output schema (the SDK client validates it)', async () => {
  const wheel = await buildWheel('mcp_probe', '1.0.0', 'VALUE = 7\n');
  writeFileSync(join(dir, wheel.fileName), wheel.bytes);
  const calls: [string, Record<string, unknown>][] = [
    ['write_file', { path: 'x.txt', content: 'x' }],
    ['read_file', { path: 'x.txt' }],
    ['list_files', {}],
    ['delete_file', { path: 'x.txt' }],
    ['list_blueprints', {}],
    ['read_blueprint', { id: '0x000060' }],
    ['install_python_package', { package: join(dir, wheel.fileName) }],
    ['list_python_packages', {}],
    ['list_skills', {}],
    ['read_skill', { namespace: 'memory' }],
    ['list_mcp_servers', {}],
  ];
  const { tools } = await stdio.listTools();
  for (const [name, args] of calls) {
    assert.ok(tools.find((t) => t.name === name)?.outputSchema, `${name} declares an output schema`);
    const r = (await stdio.callTool({ name, arguments: args })) as CallToolResult;
    assert.notEqual(r.isError, true, `${name}: ${text(r)}`);
    assert.ok(r.structuredContent, name);
  }
});

test('a reference server behind Armature, killed mid-session, answers why and comes back with restart_mcp_server', async () => {
  const made = (await stdio.callTool({ name: 'execute_python', arguments: { code: 'from tools.memory import create_entities\ncreate_entities([{"name": "Ada", "entityType": "person", "observations": []}])["entities"][0]["name"]' } })) as CallToolResult;
  assert.equal((made.structuredContent as { value: string }).value, 'Ada', text(made));
  const servers = (await stdio.callTool({ name: 'list_mcp_servers', arguments: {} })) as CallToolResult;
  const memory = (servers.structuredContent as { servers: { name: string; pid: number }[] }).servers.find((s) => s.name === 'memory')!;
  process.kill(memory.pid, 'SIGKILL');
  let dead: CallToolResult | undefined;
  for (let i = 0; i < 50 && !dead?.isError; i++) {
    dead = (await stdio.callTool({ name: 'memory.read_graph', arguments: {} })) as CallToolResult;
    if (!dead.isError) await new Promise((r) => setTimeout(r, 20));
  }
  assert.match(text(dead!), /^MCP_SERVER_UNAVAILABLE: memory\.read_graph cannot run: the MCP server memory \(.*\) stopped: its process exited/);
  assert.match(text(dead!), /hint: .*restart_mcp_server \{"name": "memory"\}/);
  const restarted = (await stdio.callTool({ name: 'restart_mcp_server', arguments: { name: 'memory' } })) as CallToolResult;
  assert.equal((restarted.structuredContent as { state: string }).state, 'ready', text(restarted));
  const graph = (await stdio.callTool({ name: 'memory.read_graph', arguments: {} })) as CallToolResult;
  assert.deepEqual((graph.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name), ['Ada']);
});

test('HTTP: loopback only unless told, with a bearer token; the Host header is checked', async () => {
  const refuse = spawnSync(process.execPath, [bin, 'mcp', '--http', '--host', '0.0.0.0', '--data', tempDir('mcp-refuse')], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(refuse.status, 2);
  assert.match(refuse.stderr, /--host 0\.0\.0\.0 is not a loopback address: .* Pass --allow-remote/);
  const noToken = spawnSync(process.execPath, [bin, 'mcp', '--http', '--host', '0.0.0.0', '--allow-remote', '--data', tempDir('mcp-refuse')], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ARMATURE_MCP_TOKEN: '' } });
  assert.equal(noToken.status, 2);
  assert.match(noToken.stderr, /needs a bearer token: set ARMATURE_MCP_TOKEN/);
  // What a page on another site would send after rebinding its name to 127.0.0.1 (fetch cannot forge Host).
  const rebinding = await new Promise<number>((resolve, reject) => {
    const u = new URL(httpServer.url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end('{}');
  });
  assert.equal(rebinding, 403);
  const token = 'test-token-0123456789abcdef';
  const server = await startMcpHttpChild([], { cwd: dir, env: { ARMATURE_MCP_TOKEN: token } });
  try {
    const anonymous = new Client({ name: 'anonymous', version: '1' });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(server.url))), /401|token/i);
    const authorized = new Client({ name: 'authorized', version: '1' });
    await authorized.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    assert.ok((await authorized.listTools()).tools.length > 5);
    await authorized.close();
  } finally {
    await server.stop();
  }
});
