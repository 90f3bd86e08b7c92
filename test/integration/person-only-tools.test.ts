// A person's powers on the booted default persona: the person-only tools are never offered to an
// agent (code and direct mode), an MCP client (tools/list), Python (its catalog, generated modules
// and skills), and are refused when any of them calls one anyway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { boot } from '../../src/index.ts';
import { createMcpServer } from '../../src/mcp/mcp-server.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import type { PythonToolApi } from '../../upgrades/python-tool/python-tool-types.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('person-only tools are absent from what agents, MCP clients, skills and Python see, and refused to them', async () => {
  await using sys = await boot({ dataDir: tempDir('person-only'), config: { PyodideRuntime: { autoStart: false } } });
  const person = sys.tools.getToolDeclarations({ audience: 'person' }).filter((d) => d.audience === 'person').map((d) => d.name);
  for (const name of ['approve_change', 'reject_change', 'rollback_change', 'retire_change', 'list_changes', 'read_change']) assert.ok(person.includes(name), `${name} is a person's tool`);
  const mention = (text: string) => person.filter((name) => new RegExp(`\\b${name}\\b`).test(text));

  const agent = await sys.resolve<AgentApi>('Agent');
  for (const toolMode of ['code', 'direct'] as const) {
    const run = agent.describeRun({ toolMode });
    assert.deepEqual(run.tools.filter((t) => person.includes(t)), [], `${toolMode} mode offers none`);
    assert.deepEqual(mention(run.system), [], `${toolMode} mode's system prompt names none`);
  }
  const python = await sys.resolve<PythonToolApi>('PythonTool');
  assert.deepEqual(mention(JSON.stringify(python.getCatalog())), [], 'Python\'s catalog');
  assert.deepEqual(mention(JSON.stringify(python.listSkills())), [], 'the skills');
  assert.deepEqual(mention(python.getSkillIndex()), []);
  assert.deepEqual(mention(python.getSystemPrompt()), []);

  const mcp = await createMcpServer(sys);
  const client = new Client({ name: 'person-only-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  try {
    await Promise.all([mcp.server.connect(serverSide), client.connect(clientSide)]);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes('read_file'), 'the list is the persona\'s');
    assert.deepEqual(listed.filter((n) => person.includes(n)), [], 'tools/list');
    const called = await client.callTool({ name: 'list_changes', arguments: {} });
    assert.equal(called.isError, true);
    assert.match(JSON.stringify(called.content), /PERSON_ONLY/);
  } finally {
    await client.close();
    await mcp.close();
  }

  for (const caller of ['agent', 'python', 'mcp', 'tool:made.word_count', 'upgrade:counter']) {
    const r = await sys.tools.executeTool('list_changes', {}, { caller });
    assert.equal(!r.ok && r.error.code, 'PERSON_ONLY', caller);
  }
  const ui = await sys.tools.executeTool<{ items: unknown[] }>('list_changes', {}, { caller: 'ui' });
  assert.deepEqual(ui.ok && ui.value.items, []);
});
