// The MCP server over a booted system, driven by the official SDK client through a linked
// in-memory transport: its tool list follows the ToolRunner both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { boot } from '../index.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { until } from '../../test/helpers/until.ts';
import { createMcpServer } from './mcp-server.ts';

test('a tool registered or unregistered after the session started sends tools/list_changed; the list follows', async () => {
  const sys = await boot({ dataDir: tempDir('mcp-server-list'), config: { PyodideRuntime: { autoStart: false } } });
  const mcp = await createMcpServer(sys);
  const client = new Client({ name: 'armature-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  try {
    await Promise.all([mcp.server.connect(serverSide), client.connect(clientSide)]);
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!(await names()).includes('echo_late'));

    const registration = sys.tools.registerTools(
      [{ name: 'echo_late', description: 'Echoes.', module: 'Test', inputSchema: { type: 'object' }, pythonCallable: true }],
      async (_name, args) => args,
    );
    await until('list_changed after registering', () => changes === 1);
    assert.ok((await names()).includes('echo_late'));

    registration.dispose();
    await until('list_changed after unregistering', () => changes === 2);
    assert.ok(!(await names()).includes('echo_late'), 'the retired tool is gone from the list');
  } finally {
    await client.close();
    await mcp.close();
    await sys.dispose();
  }
});
