// The HTTP server's session bounds, driven by the official SDK client over real HTTP in process:
// a session left idle (the SDK's close() sends no DELETE) expires — its MCP server closed, its
// Python runtime given back through `session:ended` — and its id then answers 404; past
// `maxSessions` an initialize gets a JSON-RPC error that says what to do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { boot, type ArmatureSystem } from '../kernel/boot/boot.ts';
import type { PythonPoolState } from '../contracts/python-events.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { until } from '../../test/helpers/until.ts';
import { serveMcpHttp } from './http.ts';

let sys: ArmatureSystem;
before(async () => {
  sys = await boot({ dataDir: tempDir('mcp-http-sessions'), config: { PyodideRuntime: { autoStart: false, snapshot: 'off' } } });
});
after(() => sys.dispose());

const connect = async (url: string) => {
  const client = new Client({ name: 'armature-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
};

test('an idle session expires: its runtime goes back to the pool, its id answers 404, a new session works', async () => {
  // Long enough that a loaded machine never lets the client's own steps (initialize, then initialized,
  // then the call) stand 2 s apart; the expiry itself is waited for as an event, not a clock.
  const server = await serveMcpHttp(sys, { port: 0, sessionTimeoutMs: 2000 });
  const ended: string[] = [];
  const pools: PythonPoolState[] = [];
  const subs = [sys.bus.on('session:ended', (e) => void ended.push(e.session)), sys.bus.on('python:pool', (p) => void pools.push(p))];
  try {
    const { client, transport } = await connect(server.url);
    const run = (await client.callTool({ name: 'execute_python', arguments: { code: 'kept = 41\nkept + 1' } })) as CallToolResult;
    assert.equal((run.structuredContent as { value: number }).value, 42);
    assert.equal(pools.at(-1)?.sessions, 1, 'the session holds a runtime of the pool');
    const sid = transport.sessionId!;
    // No request for longer than the timeout (and no DELETE: closing the SDK client sends none).
    await client.close();
    await until('the idle session to expire', () => server.sessions() === 0);
    await until('its runtime to go back to the pool', () => pools.at(-1)?.sessions === 0);
    assert.equal(ended.length, 1);
    const stale = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(stale.status, 404);
    assert.match(((await stale.json()) as { error: { message: string } }).error.message, /is not a live session \(it ended, expired after 2000 ms idle, or never was\); start a new one with initialize/);
    const again = await connect(server.url);
    const fresh = (await again.client.callTool({ name: 'execute_python', arguments: { code: "'kept' in globals()" } })) as CallToolResult;
    assert.equal((fresh.structuredContent as { value: boolean }).value, false, 'a new session starts on fresh globals');
    await again.client.close();
  } finally {
    for (const s of subs) s.dispose();
    await server.close();
  }
});

test('a session with a request in flight does not expire, however long the request takes', async () => {
  // As above, a timeout a loaded machine's client steps never span (200 ms did: the session
  // expired between initialize and initialized), and a request longer than it.
  const server = await serveMcpHttp(sys, { port: 0, sessionTimeoutMs: 2000 });
  try {
    const { client } = await connect(server.url);
    const r = (await client.callTool({ name: 'execute_python', arguments: { code: 'import time\ntime.sleep(2.5)\n"slept"' } })) as CallToolResult;
    assert.equal((r.structuredContent as { value: string }).value, 'slept');
    assert.ok((await client.listTools()).tools.length > 5, 'the session is still there after a request longer than its timeout');
    await client.close();
  } finally {
    await server.close();
  }
});

test('past maxSessions an initialize is refused with a JSON-RPC error naming the limit and the way out; ending one makes room', async () => {
  const server = await serveMcpHttp(sys, { port: 0, maxSessions: 2 });
  try {
    const first = await connect(server.url);
    const second = await connect(server.url);
    const third = await connect(server.url).then(
      () => assert.fail('a third session was accepted'),
      (e: Error) => e,
    );
    assert.equal((third as { code?: number }).code, 503);
    assert.match(third.message, /Too many sessions: 2 are live and the limit is 2 \(--max-sessions\); end sessions you no longer use \(DELETE \/mcp with their Mcp-Session-Id\) or wait for idle ones to expire/);
    const raw = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 'init-7', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
    const body = (await raw.json()) as { id: unknown; error: { code: number; message: string } };
    assert.deepEqual({ status: raw.status, id: body.id, code: body.error.code }, { status: 503, id: 'init-7', code: -32000 }, 'the error answers the initialize by its id');
    await first.transport.terminateSession();
    await first.client.close();
    assert.equal(server.sessions(), 1);
    const fourth = await connect(server.url);
    assert.ok((await fourth.client.listTools()).tools.length > 5);
    await Promise.all([second.client.close(), fourth.client.close()]);
  } finally {
    await server.close();
  }
});
