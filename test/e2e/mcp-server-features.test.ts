// What `armature mcp` offers beyond tools, through the official SDK client over stdio and HTTP:
// completions of workspace paths, skill namespaces and persona names; prompts with arguments (the
// system prompt for a persona, "use Armature for this task", one per skill); subscriptions to
// workspace files; images returned by tools as image content blocks (from Python, and from an MCP
// server behind Armature).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type McpError, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_BINS } from '../helpers/mcp-servers.ts';
import { startMcpHttpChild, type McpHttpChild } from '../helpers/mcp-http-child.ts';
import { connectStdioClient } from '../helpers/mcp-stdio-client.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const dir = tempDir('mcp-features');
const mcpConfig = join(dir, 'mcp.json');
writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [SERVER_BINS.everything] } } }));
/** A 1x1 PNG. */
/** A WAV header with no samples, as base64. */
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
let stdio: Client;
let http: Client;
let httpServer: McpHttpChild;

before(async () => {
  stdio = await connectStdioClient(['--mcp-config', mcpConfig], { data: join(dir, 'stdio'), cwd: dir });
  httpServer = await startMcpHttpChild([], { data: join(dir, 'http') });
  http = new Client({ name: 'armature-test', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(httpServer.url)));
  for (const c of [stdio, http]) {
    for (const path of ['data/report.csv', 'data/raw.json', 'notes.md']) await c.callTool({ name: 'write_file', arguments: { path, content: `# ${path}` } });
  }
});

after(async () => {
  await stdio?.close();
  await http?.close();
  await httpServer?.stop();
});

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

for (const [transport, client] of [['stdio', () => stdio], ['http', () => http]] as const) {
  test(`${transport}: completion/complete offers workspace paths, skill namespaces and persona names`, async () => {
    assert.ok(client().getServerCapabilities()?.completions);
    const complete = async (ref: { type: 'ref/resource'; uri: string } | { type: 'ref/prompt'; name: string }, name: string, value: string) => (await client().complete({ ref, argument: { name, value } })).completion;
    const workspace = { type: 'ref/resource' as const, uri: 'armature://workspace/{+path}' };
    assert.deepEqual(await complete(workspace, 'path', 'data/'), { values: ['data/raw.json', 'data/report.csv'], total: 2, hasMore: false });
    assert.deepEqual((await complete(workspace, 'path', 'rep')).values, ['data/report.csv'], 'a match inside the path when none starts with it');
    assert.deepEqual((await complete({ type: 'ref/resource', uri: 'armature://skills/{namespace}' }, 'namespace', 'work')).values, ['workspace']);
    assert.deepEqual((await complete({ type: 'ref/prompt', name: 'armature-system-prompt' }, 'persona', 'rea')).values, ['reader']);
    assert.deepEqual((await complete({ type: 'ref/prompt', name: 'use-armature' }, 'file', 'notes')).values, ['notes.md']);
    assert.deepEqual((await complete({ type: 'ref/prompt', name: 'use-armature' }, 'task', 'an')).values, []);
    const unknown = await complete({ type: 'ref/prompt', name: 'no-such-prompt' }, 'x', '').then(() => undefined, (e: McpError) => e);
    assert.equal(unknown?.code, -32602);
  });

  test(`${transport}: prompts take arguments: the system prompt for a persona, a task with a file, a task for a skill`, async () => {
    const { prompts } = await client().listPrompts();
    const byName = new Map(prompts.map((p) => [p.name, p]));
    assert.deepEqual(byName.get('use-armature')?.arguments?.map((a) => [a.name, a.required]), [['task', true], ['file', false]]);
    assert.deepEqual(byName.get('skill-workspace')?.arguments?.map((a) => a.name), ['task']);
    const reader = await client().getPrompt({ name: 'armature-system-prompt', arguments: { persona: 'reader' } });
    const own = await client().getPrompt({ name: 'armature-system-prompt' });
    assert.notEqual((reader.messages[0]!.content as { text: string }).text, (own.messages[0]!.content as { text: string }).text, 'written for the reader persona\'s tools');
    const task = await client().getPrompt({ name: 'use-armature', arguments: { task: 'Sum the second column', file: 'data/report.csv' } });
    assert.match((task.messages[0]!.content as { text: string }).text, /call `execute_python` with code[\s\S]*\n\nTask: Sum the second column$/);
    assert.deepEqual(task.messages[1]!.content, { type: 'resource', resource: { uri: 'armature://workspace/data/report.csv', mimeType: 'text/plain', text: '# data/report.csv' } });
    const skill = await client().getPrompt({ name: 'skill-workspace', arguments: { task: 'List the notes' } });
    assert.match(String((skill.messages[0]!.content as { resource: { text: string } }).resource.text), /^# Skill: workspace/);
    assert.match((skill.messages[1]!.content as { text: string }).text, /from tools\.workspace import[\s\S]*do this: List the notes$/);
    for (const [name, args, message] of [
      ['use-armature', {}, /prompt use-armature needs arguments\.task \(What to do\.\)/],
      ['use-armature', { task: 'x', file: 'nope.txt' }, /no workspace file "nope\.txt"/],
      ['armature-system-prompt', { persona: 'nobody' }, /no persona "nobody"; personas: .*default/],
      ['skill-workspace', { task: 'x', colour: 'red' }, /takes no argument "colour"; it takes task/],
    ] as const) {
      const e = await client().getPrompt({ name, arguments: args as Record<string, string> }).then(() => undefined, (e: McpError) => e);
      assert.equal(e?.code, -32602, name);
      assert.match(e!.message, message);
    }
  });

  test(`${transport}: a subscribed workspace file, even one not there yet, sends resources/updated when written; unsubscribed, it does not`, async () => {
    assert.equal(client().getServerCapabilities()?.resources?.subscribe, true);
    const updates: string[] = [];
    client().setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await client().subscribeResource({ uri: 'armature://workspace/watched/a%20b.txt' });
    await client().subscribeResource({ uri: 'armature://workspace/other.txt' });
    await client().callTool({ name: 'write_file', arguments: { path: 'watched/a b.txt', content: 'one' } });
    await until('the update of the watched file', () => updates.includes('armature://workspace/watched/a%20b.txt'));
    await client().unsubscribeResource({ uri: 'armature://workspace/watched/a%20b.txt' });
    await client().callTool({ name: 'write_file', arguments: { path: 'watched/a b.txt', content: 'two' } });
    await client().callTool({ name: 'delete_file', arguments: { path: 'other.txt' } }).catch(() => undefined);
    await client().callTool({ name: 'write_file', arguments: { path: 'other.txt', content: 'x' } });
    await until('the update of the other file', () => updates.includes('armature://workspace/other.txt'));
    assert.deepEqual(updates.filter((u) => u.includes('watched')), ['armature://workspace/watched/a%20b.txt'], 'nothing after unsubscribing');
    const refused = await client().subscribeResource({ uri: 'file:///etc/hosts' }).then(() => undefined, (e: McpError) => e);
    assert.equal(refused?.code, -32602);
  });

  test(`${transport}: an image Python returns comes as an image content block, its base64 not repeated in the text`, async () => {
    const r = (await client().callTool({ name: 'execute_python', arguments: { code: `{"type": "image", "mimeType": "image/png", "data": "${PNG}"}` } })) as CallToolResult;
    assert.notEqual(r.isError, true, text(r));
    assert.deepEqual(r.content.filter((c) => c.type === 'image'), [{ type: 'image', mimeType: 'image/png', data: PNG }]);
    assert.ok(!text(r).includes(PNG), 'the text names the image instead of carrying it');
    assert.match(text(r), /"data": "<\d+ characters of base64: sent as a content block>"/);
    assert.equal((r.structuredContent as { value: { data: string } }).value.data, PNG, 'the structured value is whole');
    // Audio too, beside an image in a list.
    const both = (await client().callTool({ name: 'execute_python', arguments: { code: `[{"type": "image", "mimeType": "image/png", "data": "${PNG}"}, {"type": "audio", "mimeType": "audio/wav", "data": "${WAV}"}]` } })) as CallToolResult;
    assert.notEqual(both.isError, true, text(both));
    assert.deepEqual(both.content.filter((c) => c.type !== 'text'), [{ type: 'image', mimeType: 'image/png', data: PNG }, { type: 'audio', mimeType: 'audio/wav', data: WAV }]);
    assert.ok(!text(both).includes(WAV), 'the text names the audio instead of carrying it');
  });
}

test('stdio: an MCP server\'s image passes through Armature as image content, its text blocks as text', async () => {
  const { tools } = await stdio.listTools();
  const name = tools.find((t) => t.name.endsWith('get-tiny-image'))?.name;
  assert.ok(name, tools.map((t) => t.name).join(' '));
  const r = (await stdio.callTool({ name, arguments: {} })) as CallToolResult;
  assert.deepEqual(r.content.map((c) => c.type), ['text', 'image', 'text']);
  assert.equal((r.content[1] as { mimeType: string }).mimeType, 'image/png');
});
