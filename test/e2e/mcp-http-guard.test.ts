// Who may talk to `armature mcp --http`, through the real bin: the official SDK client and raw
// HTTP. A request with an Origin header that is not allowed gets 403 (the spec's MUST) — another
// site's page or a page on another port of this machine alike — and pages of origins given with
// --allow-origin get in; the Host header is compared without case; "Authorization: bearer" is
// taken in any case; beyond loopback (--allow-remote) Host and Origin are still checked against
// what is configured, and a token shorter than 32 characters is refused at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startMcpHttpChild } from '../helpers/mcp-http-child.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const TOKEN = 'a'.repeat(20) + 'b'.repeat(20);

/** A raw initialize with these headers; resolves to the status, the session id and the body. */
function initialize(url: string, headers: Record<string, string>): Promise<{ status: number; session?: string; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: u.port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.once('end', () => resolve({ status: res.statusCode!, session: res.headers['mcp-session-id'] as string | undefined, body }));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  });
}

/** The SDK client, connected with these headers on every request. */
async function sdkClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'armature-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url.replace('0.0.0.0', '127.0.0.1')), { requestInit: { headers } }));
  return client;
}

test('loopback: a foreign Origin — another site, or another port of this machine — gets 403; no Origin and Host: LOCALHOST are served', async () => {
  const server = await startMcpHttpChild([]);
  try {
    const port = new URL(server.url).port;
    for (const origin of ['http://evil.example', `http://localhost:3000`, `http://127.0.0.1:${port}0`, 'null']) {
      const r = await initialize(server.url, { origin });
      assert.equal(r.status, 403, origin);
      assert.equal(r.session, undefined);
      assert.match(JSON.parse(r.body).error.message, /^Forbidden: Origin ".*" is not allowed: no web origin is, so pages cannot call this server; serve with --allow-origin ORIGIN/);
    }
    const refused = await sdkClient(server.url, { Origin: 'http://evil.example' }).then(() => assert.fail('connected'), (e: Error & { code?: number }) => e);
    assert.equal(refused.code, 403);
    const upper = await initialize(server.url, { host: `LOCALHOST:${port}` });
    assert.equal(upper.status, 200, upper.body);
    assert.ok(upper.session);
    const rebinding = await initialize(server.url, { host: `attacker.example:${port}` });
    assert.equal(rebinding.status, 403);
    const client = await sdkClient(server.url);
    assert.ok((await client.listTools()).tools.length > 5);
    await client.close();
  } finally {
    await server.stop();
  }
});

test('--allow-origin lets that page in (and no other); the bearer scheme is taken in any case', async () => {
  const server = await startMcpHttpChild(['--allow-origin', 'http://localhost:5173', '--allow-origin', 'https://app.example.com'], { env: { ARMATURE_MCP_TOKEN: TOKEN } });
  try {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const client = await sdkClient(server.url, { Origin: 'http://localhost:5173', Authorization: `${scheme} ${TOKEN}` });
      assert.ok((await client.listTools()).tools.length > 5, scheme);
      await client.close();
    }
    assert.equal((await initialize(server.url, { origin: 'https://app.example.com', authorization: `bearer ${TOKEN}` })).status, 200);
    const other = await initialize(server.url, { origin: 'http://localhost:5174', authorization: `Bearer ${TOKEN}` });
    assert.equal(other.status, 403);
    assert.match(JSON.parse(other.body).error.message, /Origin "http:\/\/localhost:5174" is not allowed \(allowed: http:\/\/localhost:5173, https:\/\/app\.example\.com\)/);
    assert.equal((await initialize(server.url, { origin: 'http://localhost:5173', authorization: `Bearer ${TOKEN}x` })).status, 401);
    assert.equal((await initialize(server.url, { origin: 'http://localhost:5173' })).status, 401);
  } finally {
    await server.stop();
  }
});

test('--allow-remote: a token under 32 characters is refused at start; Host and Origin are still checked against what is configured', async () => {
  const short = spawnSync(process.execPath, [bin, 'mcp', '--http', '--host', '0.0.0.0', '--allow-remote', '--data', tempDir('mcp-short')], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ARMATURE_MCP_TOKEN: 'x'.repeat(31) } });
  assert.equal(short.status, 2);
  assert.match(short.stderr, /ARMATURE_MCP_TOKEN has 31 characters; serving on 0\.0\.0\.0 needs at least 32/);
  const server = await startMcpHttpChild(['--host', '0.0.0.0', '--allow-remote', '--allow-host', 'mcp.example.test'], { env: { ARMATURE_MCP_TOKEN: TOKEN } });
  try {
    const port = new URL(server.url).port;
    const auth = { authorization: `Bearer ${TOKEN}` };
    assert.equal((await initialize(server.url, { ...auth, host: `attacker.example:${port}` })).status, 403, 'a name nobody configured');
    assert.equal((await initialize(server.url, { ...auth, host: `MCP.example.test:${port}` })).status, 200, 'the configured name');
    assert.equal((await initialize(server.url, { ...auth, host: `127.0.0.1:${port}` })).status, 200, 'loopback');
    assert.equal((await initialize(server.url, { ...auth, origin: 'http://evil.example' })).status, 403, 'a page of another site');
    assert.equal((await initialize(server.url, { host: `127.0.0.1:${port}` })).status, 401, 'no token');
    const client = await sdkClient(server.url, { Authorization: `bearer ${TOKEN}` });
    assert.ok((await client.listTools()).tools.length > 5);
    await client.close();
  } finally {
    await server.stop();
  }
});

test('a malformed --allow-origin, or HTTP flags without --http, are usage errors', () => {
  const path = spawnSync(process.execPath, [bin, 'mcp', '--http', '--port', '0', '--allow-origin', 'https://app.example.com/page', '--data', tempDir('mcp-origin')], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(path.status, 2);
  assert.match(path.stderr, /"https:\/\/app\.example\.com\/page" is not an origin: give scheme, host and optional port only/);
  const stdio = spawnSync(process.execPath, [bin, 'mcp', '--allow-origin', 'https://app.example.com', '--max-sessions', '3', '--data', tempDir('mcp-origin')], { encoding: 'utf8', timeout: 60_000, input: '' });
  assert.equal(stdio.status, 2);
  assert.match(stdio.stderr, /--allow-origin, --max-sessions apply to mcp --http; stdio needs none of them/);
});
