// Protocol errors of `armature mcp` as the official SDK client sees them, over stdio and HTTP:
// bad params are -32602 with a sentence naming the field (not -32603 and a zod dump); resource
// reads fail with -32002 (unknown, `data.uri` the URI as given), -32602 (malformed) or -32600 (too
// large for one message); `logging/setLevel` is honoured by execute_python's streamed output.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, GetPromptResultSchema, LoggingMessageNotificationSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startMcpHttpChild, type McpHttpChild } from '../helpers/mcp-http-child.ts';
import { connectStdioClient } from '../helpers/mcp-stdio-client.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dir = tempDir('mcp-errors');
let stdio: Client;
let http: Client;
let httpServer: McpHttpChild;

before(async () => {
  stdio = await connectStdioClient([], { data: join(dir, 'stdio'), cwd: dir });
  httpServer = await startMcpHttpChild([], { data: join(dir, 'http') });
  http = new Client({ name: 'armature-test', version: '1.0.0' });
  await http.connect(new StreamableHTTPClientTransport(new URL(httpServer.url)));
});

after(async () => {
  await stdio?.close();
  await http?.close();
  await httpServer?.stop();
});

/** The McpError `ask` rejects with. */
async function mcpError(ask: () => Promise<unknown>): Promise<McpError> {
  const e = await ask().then((r) => assert.fail(`answered ${JSON.stringify(r).slice(0, 300)}`), (e: unknown) => e);
  assert.ok(e instanceof McpError, String(e));
  return e;
}

for (const [transport, client] of [['stdio', () => stdio], ['http', () => http]] as const) {
  test(`${transport}: tools/call without a name, with arguments as a list, and prompts/get without a name are -32602 with a sentence`, async () => {
    const noName = await mcpError(() => client().request({ method: 'tools/call', params: { arguments: {} } } as never, CallToolResultSchema));
    assert.equal(noName.code, -32602);
    assert.match(noName.message, /invalid tools\/call request: params\.name is required \(the name of the tool to call, as tools\/list gives it\)$/);
    const list = await mcpError(() => client().request({ method: 'tools/call', params: { name: 'list_files', arguments: [1, 2] } } as never, CallToolResultSchema));
    assert.equal(list.code, -32602);
    assert.match(list.message, /params\.arguments must be an object \(the tool's arguments by name\), got a list$/);
    const wrongName = await mcpError(() => client().request({ method: 'tools/call', params: { name: 42 } } as never, CallToolResultSchema));
    assert.match(wrongName.message, /params\.name must be a string \(the name of the tool to call, as tools\/list gives it\), got number 42$/);
    const prompt = await mcpError(() => client().request({ method: 'prompts/get', params: {} } as never, GetPromptResultSchema));
    assert.equal(prompt.code, -32602);
    assert.match(prompt.message, /invalid prompts\/get request: params\.name is required \(the name of the prompt, as prompts\/list gives it\)$/);
    for (const e of [noName, list, prompt]) assert.doesNotMatch(e.message, /"code":|"path":|invalid_type/, 'no zod dump');
    const after = (await client().callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
    assert.notEqual(after.isError, true, 'the session goes on');
  });

  test(`${transport}: resource reads fail with -32002 (data.uri as given), -32602 (malformed URI), -32600 (too large for one message)`, async () => {
    const unknown = await mcpError(() => client().readResource({ uri: 'armature://workspace/nope.txt' }));
    assert.equal(unknown.code, -32002);
    assert.deepEqual(unknown.data, { uri: 'armature://workspace/nope.txt' });
    const skill = await mcpError(() => client().readResource({ uri: 'armature://skills/no_such_skill' }));
    assert.equal(skill.code, -32002);
    assert.deepEqual(skill.data, { uri: 'armature://skills/no_such_skill' });
    const other = await mcpError(() => client().readResource({ uri: 'file:///etc/passwd' }));
    assert.equal(other.code, -32002);
    const malformed = await mcpError(() => client().readResource({ uri: 'armature://workspace/%E0%A4%A' }));
    assert.equal(malformed.code, -32602);
    assert.match(malformed.message, /malformed percent-encoding/);
    const made = (await client().callTool({ name: 'execute_python', arguments: { code: 'open("/workspace/nine.txt", "w").write("n" * 9_000_000)', sync_workspace: true } })) as CallToolResult;
    assert.notEqual(made.isError, true, JSON.stringify(made.content).slice(0, 500));
    const big = await mcpError(() => client().readResource({ uri: 'armature://workspace/nine.txt' }));
    assert.equal(big.code, -32600);
    assert.match(big.message, /is 9450000 bytes; one message carries at most 8388608: read it in parts from Python/);
    assert.ok((await client().listTools()).tools.length > 5, 'the session goes on');
  });

  test(`${transport}: after logging/setLevel("error") no info or warning output arrives; back at "info" it does`, async () => {
    const got: string[] = [];
    client().setNotificationHandler(LoggingMessageNotificationSchema, (n) => void got.push(`${n.params.level}:${String(n.params.data).trim()}`));
    const run = async (word: string) => {
      const r = (await client().callTool({ name: 'execute_python', arguments: { code: `import sys\nprint("${word}")\nprint("${word}-err", file=sys.stderr)` } })) as CallToolResult;
      assert.equal((r.structuredContent as { stdout: string }).stdout, `${word}\n`, 'the output is in the result either way');
    };
    await client().setLoggingLevel('error');
    await run('quiet');
    await client().setLoggingLevel('warning');
    await run('warn');
    await client().setLoggingLevel('info');
    await run('loud');
    // Notifications travel before the result they belong to.
    assert.deepEqual(got, ['warning:warn-err', 'info:loud', 'warning:loud-err']);
    const bad = await mcpError(() => client().request({ method: 'logging/setLevel', params: { level: 'verbose' } } as never, CallToolResultSchema.partial()));
    assert.equal(bad.code, -32602);
    assert.match(bad.message, /params\.level must be one of "debug", "info", .*got the string "verbose"/);
  });
}
