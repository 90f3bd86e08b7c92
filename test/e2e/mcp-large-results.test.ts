// Results too large for one message, through the official SDK client over stdio (its
// StdioClientTransport: one line of at most 10 MiB, past which it drops the connection) and over
// HTTP: a 6 MB execute_python value and a 50 MB read_file come back as a resource_link to the
// whole (in the workspace) with a short preview and a shrunk structured value that still matches
// the tool's output schema; the session goes on, and the link can be followed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import { startMcpHttpChild, type McpHttpChild } from '../helpers/mcp-http-child.ts';
import { connectStdioClient } from '../helpers/mcp-stdio-client.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('mcp-large');
let stdio: Client;
let http: Client;
let httpServer: McpHttpChild;
let closed = 0;

before(async () => {
  stdio = await connectStdioClient([], { data: join(dir, 'stdio'), cwd: dir });
  stdio.onclose = () => void closed++;
  // Over HTTP with a lower limit, given on the command line.
  httpServer = await startMcpHttpChild(['--max-result-bytes', '100000'], { data: join(dir, 'http') });
  http = new Client({ name: 'armature-test', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(httpServer.url)));
});

after(async () => {
  await stdio?.close();
  await http?.close();
  await httpServer?.stop();
});

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
const linkOf = (r: CallToolResult) => r.content.find((c): c is ResourceLink => c.type === 'resource_link');

for (const [transport, client, limit] of [['stdio', () => stdio, '1.0 MB'], ['http', () => http, '98 KB']] as const) {
  test(`${transport}: a 6 MB execute_python value comes as a resource_link with a preview; the link reads back the whole; the session goes on`, async () => {
    const r = (await client().callTool({ name: 'execute_python', arguments: { code: '"x" * 6_000_000' } })) as CallToolResult;
    assert.notEqual(r.isError, true, text(r).slice(0, 500));
    const link = linkOf(r);
    assert.ok(link, JSON.stringify(r.content).slice(0, 500));
    assert.match(link.uri, /^armature:\/\/workspace\/mcp-results\/mcp-\d+\/mcp-\d+\.json$/);
    assert.ok(link.size! > 6_000_000 && link.size! < 6_000_200, `${link.size} bytes: the whole result as JSON`);
    assert.match(text(r), new RegExp(`^The result of execute_python is [\\d.]+ MB, over this server's ${limit} limit for one result \\(--max-result-bytes\\): the whole of it is the workspace file mcp-results/.*; read it with resources/read armature://workspace/mcp-results/.*, or from Python in execute_python: open\\("/workspace/mcp-results/`));
    assert.ok(text(r).length < 3000, `the preview is short (${text(r).length} characters)`);
    const value = (r.structuredContent as { value: string }).value;
    assert.match(value, /^x+… \[\d+ more characters\]$/, 'the structured value is shrunk, still a string');
    assert.ok(value.length < 2100, `${value.length} characters`);
    const read = await client().readResource({ uri: link.uri });
    assert.equal(JSON.parse((read.contents[0] as { text: string }).text).value, 'x'.repeat(6_000_000));
    const next = (await client().callTool({ name: 'execute_python', arguments: { code: '1 + 1' } })) as CallToolResult;
    assert.equal((next.structuredContent as { value: number }).value, 2);
    assert.equal(closed, 0, 'the connection never closed');
  });

  test(`${transport}: a 50 MB read_file links the file itself; reading that resource whole is refused by its size, not by a dropped connection`, async () => {
    const made = (await client().callTool({ name: 'execute_python', arguments: { code: 'open("/workspace/big.txt", "w").write("y" * 50_000_000)', sync_workspace: true } })) as CallToolResult;
    assert.notEqual(made.isError, true, text(made).slice(0, 500));
    const r = (await client().callTool({ name: 'read_file', arguments: { path: 'big.txt' } })) as CallToolResult;
    assert.notEqual(r.isError, true, text(r).slice(0, 500));
    const link = linkOf(r)!;
    assert.deepEqual({ uri: link.uri, size: link.size, mimeType: link.mimeType }, { uri: 'armature://workspace/big.txt', size: 50_000_000, mimeType: 'text/plain' });
    const structured = r.structuredContent as { path: string; size: number; content: string };
    assert.deepEqual({ path: structured.path, size: structured.size }, { path: 'big.txt', size: 50_000_000 });
    assert.ok(structured.content.length < 3000);
    await assert.rejects(client().readResource({ uri: link.uri }), /one message carries at most 8388608/);
    assert.ok((await client().listTools()).tools.length > 5, 'the session goes on');
    assert.equal(closed, 0, 'the connection never closed');
  });
}

test('a result under the limit is sent as it is', async () => {
  const r = (await http.callTool({ name: 'execute_python', arguments: { code: '"z" * 40_000' } })) as CallToolResult;
  assert.equal(linkOf(r), undefined);
  assert.equal((r.structuredContent as { value: string }).value, 'z'.repeat(40_000));
});
