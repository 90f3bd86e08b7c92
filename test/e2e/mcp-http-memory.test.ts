// `armature mcp --http` under abuse, in a process of its own with `--expose-gc`: 2,000 refused
// requests (wrong media type, not acceptable, no session, an unknown session, a foreign Origin, a
// GET without a session) and 1,000 sessions opened and abandoned without DELETE — some by the
// official SDK client, whose close() sends none — leave the heap, after collection, within 10 MB
// of where it started: refused requests build nothing, and idle sessions expire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempDir } from '../helpers/temp-dir.ts';

const sourceHooks = new URL('../../src/platform/source-hooks.mjs', import.meta.url).href;
const fixture = fileURLToPath(new URL('../fixtures/mcp-http-heap.ts', import.meta.url));
const MB = 1024 * 1024;
const SESSION_TIMEOUT_MS = 400;

const initialize = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'load', version: '1' } } });
const JSON_AND_SSE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The requests a server must refuse, in turn. */
const REFUSED: { method: string; headers: Record<string, string>; body?: (i: number) => string; status: number }[] = [
  { method: 'POST', headers: { 'content-type': 'text/plain', accept: JSON_AND_SSE.accept }, body: initialize, status: 415 },
  { method: 'POST', headers: { ...JSON_AND_SSE, accept: 'application/json' }, body: initialize, status: 406 },
  { method: 'POST', headers: JSON_AND_SSE, body: (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }), status: 400 },
  { method: 'POST', headers: { ...JSON_AND_SSE, 'mcp-session-id': 'no-such-session' }, body: (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }), status: 404 },
  { method: 'POST', headers: { ...JSON_AND_SSE, origin: 'http://localhost:3000' }, body: initialize, status: 403 },
  { method: 'GET', headers: { accept: 'text/event-stream' }, status: 400 },
];

test('2,000 refused requests and 1,000 abandoned sessions leave the heap within 10 MB of its baseline', async () => {
  const child = spawn(process.execPath, ['--expose-gc', '--import', sourceHooks, fixture, tempDir('mcp-heap'), String(SESSION_TIMEOUT_MS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const url = new URL((await next()).replace(/^url /, ''));
  const ask = async (what: 'heap' | 'sessions') => {
    const answer = next();
    child.stdin!.write(`${what}\n`);
    const [, a, b] = (await answer).split(' ');
    return what === 'heap' ? { heap: Number(a), sessions: Number(b), ended: NaN } : { heap: NaN, sessions: Number(a), ended: Number(b) };
  };
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const send = (method: string, headers: Record<string, string>, body?: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method, headers, agent }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode!));
      });
      req.once('error', reject);
      req.end(body);
    });
  /** `n` requests, 8 at a time. */
  const load = async (n: number, one: (i: number) => Promise<void>) => {
    let i = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (i < n) await one(i++);
    }));
  };
  const refused = (n: number) =>
    load(n, async (i) => {
      const r = REFUSED[i % REFUSED.length]!;
      assert.equal(await send(r.method, r.headers, r.body?.(i)), r.status, `${r.method} ${JSON.stringify(r.headers)}`);
    });
  const abandoned = (n: number) => load(n, async (i) => assert.equal(await send('POST', JSON_AND_SSE, initialize(i)), 200));
  const sdkAbandoned = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const client = new Client({ name: 'leaver', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(url));
      await client.listTools();
      await client.close();
    }
  };
  try {
    // Warm up (code compiled, caches filled), then the baseline.
    await refused(120);
    await abandoned(50);
    await sdkAbandoned(5);
    await settle(ask);
    const baseline = await ask('heap');
    await refused(2000);
    await abandoned(950);
    await sdkAbandoned(50);
    const loaded = await ask('heap');
    const endedBefore = (await ask('sessions')).ended;
    await settle(ask);
    const after = await ask('heap');
    const ended = (await ask('sessions')).ended;
    const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
    process.stderr.write(`# heap: baseline ${mb(baseline.heap)}; after the load ${mb(loaded.heap)} with ${loaded.sessions} sessions live; once all expired ${mb(after.heap)} (+${mb(after.heap - baseline.heap)}); ${ended} ended\n`);
    // Every abandoned session ended by expiring (nothing else ends them: no client sent DELETE).
    assert.ok(ended >= 1000, `${ended} sessions ended (${endedBefore} before the last wait)`);
    assert.equal(after.sessions, 0, 'every abandoned session expired');
    assert.ok(after.heap - baseline.heap < 10 * MB, `the heap grew by ${mb(after.heap - baseline.heap)}`);
  } finally {
    agent.destroy();
    child.stdin!.end();
    await new Promise((r) => child.once('exit', r));
  }
});

/** Waits (asking the server) until every session has expired, for at most 15 s; the caller checks what is left. */
async function settle(ask: (what: 'sessions') => Promise<{ sessions: number }>): Promise<void> {
  const end = performance.now() + 15_000;
  while ((await ask('sessions')).sessions > 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 100));
}
