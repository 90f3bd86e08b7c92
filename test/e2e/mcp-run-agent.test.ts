// `run_agent` through `armature mcp` with no model configured: the agent runs on the MCP client's
// own model through sampling/createMessage. The client here is the official SDK client declaring
// `sampling: { tools: {} }`; its model is scripted in its sampling handler (first a tool_use of
// execute_python, then an answer from the tool's result), so everything between — the adapter,
// the agent loop, the ToolRunner, Python — is the real thing, over stdio and HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, type CallToolResult, type CreateMessageRequest, type CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { startMcpHttpChild } from '../helpers/mcp-http-child.ts';
import { connectStdioClient } from '../helpers/mcp-stdio-client.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** A client whose "model" answers sampling requests from a script; `seen` keeps each request. */
function scriptedClient(capabilities: Record<string, unknown>, seen: CreateMessageRequest['params'][]): Client {
  const client = new Client({ name: 'scripted-client', version: '1.0.0' }, { capabilities });
  client.setRequestHandler(CreateMessageRequestSchema, (req): CreateMessageResult => {
    seen.push(req.params);
    const last = req.params.messages.at(-1)!;
    const blocks = Array.isArray(last.content) ? last.content : [last.content];
    const result = blocks.find((b) => b.type === 'tool_result') as { content: { type: string; text: string }[] } | undefined;
    if (!result) return { role: 'assistant', model: 'scripted-1', stopReason: 'toolUse', content: [{ type: 'tool_use', id: 'call-1', name: 'execute_python', input: { code: '6 * 7' } }] } as unknown as CreateMessageResult;
    // What execute_python gave the agent: { ok, value: { value, stdout, ... } }.
    const got = JSON.parse(result.content[0]!.text) as { ok: boolean; value: { value: number } };
    return { role: 'assistant', model: 'scripted-1', stopReason: 'endTurn', content: { type: 'text', text: `The answer is ${got.value.value}.` } };
  });
  return client;
}

/** Runs the checks with each client connected by `connect` (to a server of its own over stdio, to one shared server over HTTP); `stop` ends the HTTP server. */
async function runOn(connect: (client: Client) => Promise<unknown>, stop: () => Promise<void>) {
  const seen: CreateMessageRequest['params'][] = [];
  const client = scriptedClient({ sampling: { tools: {} } }, seen);
  await connect(client);
  try {
    const listed = (await client.listTools()).tools.find((t) => t.name === 'run_agent');
    assert.ok(listed?.outputSchema, 'run_agent is offered, with its output schema');
    const progress: number[] = [];
    const r = (await client.callTool({ name: 'run_agent', arguments: { goal: 'What is six times seven? Use Python.' } }, undefined, { onprogress: (p) => void progress.push(p.progress) })) as CallToolResult;
    assert.notEqual(r.isError, true, text(r));
    assert.equal(text(r), 'The answer is 42.');
    assert.deepEqual({ ...(r.structuredContent as object), runId: 'x', usage: {} }, { runId: 'x', reason: 'answered', answer: 'The answer is 42.', steps: 2, model: 'client', usage: {} });
    assert.deepEqual(progress, [1, 2], 'a progress notification per step');
    assert.equal(seen.length, 2);
    assert.match(seen[0]!.systemPrompt ?? '', /call `execute_python` with code/, 'the agent\'s system prompt went to the client\'s model');
    assert.deepEqual(seen[0]!.tools?.map((t) => t.name).includes('execute_python'), true);
    const toolResult = (seen[1]!.messages.at(-1)!.content as { type: string; toolUseId: string }[])[0]!;
    assert.deepEqual({ type: toolResult.type, id: toolResult.toolUseId }, { type: 'tool_result', id: 'call-1' });
    // A client that offers sampling without tools cannot run an agent: told why, the session goes on.
    const plain = scriptedClient({ sampling: {} }, []);
    await connect(plain);
    const refused = (await plain.callTool({ name: 'run_agent', arguments: { goal: 'anything' } })) as CallToolResult;
    assert.equal(refused.isError, true);
    assert.match(text(refused), /^MCP_NO_CLIENT_MODEL: \[run_agent\] this MCP client's sampling takes no tools \(capability sampling\.tools\)[\s\S]*hint: Configure a model/);
    await plain.close();
    const none = new Client({ name: 'no-sampling', version: '1.0.0' });
    await connect(none);
    assert.match(text((await none.callTool({ name: 'run_agent', arguments: { goal: 'anything' } })) as CallToolResult), /does not offer sampling/);
    await none.close();
  } finally {
    await client.close();
    await stop();
  }
}

test('stdio: run_agent with no model of its own runs on the client\'s model through sampling', async () => {
  const dir = tempDir('mcp-run-agent');
  await runOn(
    (client) => connectStdioClient([], { data: join(dir, 'data'), cwd: dir, env: { PATH: process.env.PATH ?? '' }, client }),
    async () => undefined,
  );
});

test('HTTP: the same, the sampling requests riding the run_agent request\'s stream', async () => {
  const server = await startMcpHttpChild([], { env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GOOGLE_GENERATIVE_AI_API_KEY: '' } });
  await runOn((client) => client.connect(new StreamableHTTPClientTransport(new URL(server.url))), () => server.stop());
});
