import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkAllows, normalizeNetworkPolicy, policyFetch } from './network-policy.ts';

test('policies normalize to origins; anything more than an origin is refused by name', () => {
  assert.equal(normalizeNetworkPolicy(undefined, 't'), 'none');
  assert.deepEqual(normalizeNetworkPolicy(['https://API.example.com/', 'https://api.example.com', 'http://127.0.0.1:8080'], 't'), ['https://api.example.com', 'http://127.0.0.1:8080']);
  for (const [bad, why] of [
    ['ftp://x.example', /is not an http\(s\) origin/],
    ['https://x.example/v1', /has more than an origin/],
    ['https://u:p@x.example', /has more than an origin/],
    ['x.example', /is not a URL/],
  ] as const) {
    assert.throws(() => normalizeNetworkPolicy([bad], 't'), (e: Error & { code: string }) => e.code === 'INVALID_OPTIONS' && why.test(e.message) && e.message.includes(JSON.stringify(bad)));
  }
  assert.ok(networkAllows(['https://a.example'], 'https://a.example/x?y'));
  assert.ok(!networkAllows(['https://a.example'], 'https://a.example.evil.test/'));
  assert.ok(!networkAllows(['https://a.example'], 'http://a.example/'));
  assert.ok(!networkAllows('none', 'https://a.example/'));
});

let server: Server;
let origin: string;
const hits: string[] = [];
before(async () => {
  server = createServer((req, res) => {
    hits.push(req.url!);
    if (req.url === '/big') {
      res.end('b'.repeat(50_000));
      return;
    }
    if (req.url === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    }
    if (req.url === '/cookie') {
      res.end(JSON.stringify({ cookie: req.headers.cookie ?? null, auth: req.headers.authorization ?? null }));
      return;
    }
    res.writeHead(200, { 'x-probe': 'yes' });
    res.end(`${req.method} ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const opts = { maxBytes: 10_000, timeoutMs: 5000, owner: 'test' };

test('fetches an allowed origin, with headers and body', async () => {
  const r = await policyFetch([origin], { type: 'fetch', id: 'f', url: `${origin}/a`, method: 'post', headers: [['x', '1']], body: 'payload' }, opts);
  assert.equal(r.status, 200);
  assert.equal(new TextDecoder().decode(r.body), 'POST /a');
  assert.ok(r.headers.some(([k, v]) => k === 'x-probe' && v === 'yes'));
});

test('refuses what the policy does not allow before any request', async () => {
  const before = hits.length;
  await assert.rejects(policyFetch('none', { type: 'fetch', id: 'f', url: `${origin}/a`, method: 'GET', headers: [] }, opts), /may not reach .*allows no origin/);
  await assert.rejects(policyFetch(['https://other.example'], { type: 'fetch', id: 'f', url: `${origin}/a`, method: 'GET', headers: [] }, opts), /NETWORK_DENIED|may not reach/);
  await assert.rejects(policyFetch([origin], { type: 'fetch', id: 'f', url: `${origin}/a`, method: 'CONNECT', headers: [] }, opts), /method "CONNECT" is not supported/);
  assert.equal(hits.length, before);
});

test('caps the body, stops redirect loops', async () => {
  await assert.rejects(policyFetch([origin], { type: 'fetch', id: 'f', url: `${origin}/big`, method: 'GET', headers: [] }, opts), (e: Error & { code: string }) => e.code === 'MESSAGE_TOO_LARGE' && /is 50000 bytes; the limit is 10000/.test(e.message));
  await assert.rejects(policyFetch([origin], { type: 'fetch', id: 'f', url: `${origin}/loop`, method: 'GET', headers: [] }, opts), /more than 5 redirects/);
});
