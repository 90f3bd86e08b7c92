// The dashboard server is safe to leave open: raw HTTP as an attacker on this machine sends it
// (foreign Host for DNS rebinding, foreign Origin, no token, a wrong token), and real Chromium with
// a page on another port of 127.0.0.1 that frames the dashboard and calls it, before and after
// the person opened it (so the browser holds its cookie). Secrets of --mcp-config never reach the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { startServer, type RunningServer } from '../../src/server/serve.ts';
import { launchChromium } from '../helpers/dashboard-driver.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const MARKER = 'armature-guard-test-page';
const SECRET = 'Bearer sk-dashboard-secret-0123456789';
let server: RunningServer;
let port: number;
let attacker: Server;
let attackerUrl: string;
let attackerPage = '';
let browser: Browser;

/** One raw request to the dashboard server (headers exactly as given: Node's fetch forbids setting Host). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const bearer = () => ({ authorization: `Bearer ${(server as unknown as { token?: string }).token}` });

before(async () => {
  server = await startServer({
    port: 0,
    outDir: tempDir('guard-dist'),
    html: `<!doctype html><title>${MARKER}</title><p id="marker">${MARKER}</p>`,
    mcpServers: {
      remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: SECRET } },
      local: { command: 'node', args: ['server.js'], env: { API_KEY: SECRET } },
    },
  });
  port = Number(new URL((server as unknown as { origin?: string }).origin ?? server.url).port); (server as unknown as { origin: string }).origin ??= server.url.slice(0, -1);
  attacker = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(attackerPage);
  });
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((r) => attacker?.close(r));
});

test('a foreign Host header is refused (DNS rebinding): nothing is served, the MCP config least of all', async () => {
  for (const path of ['/', '/__armature/mcp-servers.json', '/__armature/project.json']) {
    const r = await raw(path, { host: `attacker.example:${port}`, ...bearer() });
    assert.equal(r.status, 421, `${path}: ${r.body}`);
    assert.match(r.body, /Host "attacker\.example:\d+" is not allowed/);
    assert.ok(!r.body.includes(SECRET));
  }
  // Loopback names are this server's own.
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) assert.equal((await raw('/__armature/project.json', { host, ...bearer() })).status, 200, host);
});

test('every route needs the token; /?token= sets an HttpOnly SameSite=Strict cookie and takes it out of the URL', async () => {
  for (const path of ['/', '/index.html', '/__armature/mcp-servers.json', '/__armature/project.json', '/dist/main.js', '/pyodide/pyodide.mjs']) {
    const r = await raw(path);
    assert.equal(r.status, 401, `${path} without a token`);
    assert.match(r.body, /needs its access token: open the URL that armature start printed/);
    assert.equal((await raw(path, { authorization: 'Bearer not-the-token-at-all' })).status, 401, `${path} with a wrong token`);
  }
  const wrong = await raw('/?token=not-the-token-at-all');
  assert.equal(wrong.status, 401);
  assert.match(wrong.body, /access token in this URL is wrong/);
  const ok = await raw(`/?persona=reader&token=${encodeURIComponent(server.token)}`);
  assert.equal(ok.status, 303);
  assert.equal(ok.headers.location, '/?persona=reader');
  const cookie = String(ok.headers['set-cookie']);
  assert.match(cookie, new RegExp(`^armature_token_${port}=[^;]+; HttpOnly; SameSite=Strict; Path=/$`));
  const page = await raw('/', { cookie: cookie.split(';')[0]! });
  assert.equal(page.status, 200);
  assert.match(page.body, new RegExp(MARKER));
  assert.equal(server.url, `${server.origin}/?token=${encodeURIComponent(server.token)}`);
});

test('a foreign Origin or another site is refused even with the token', async () => {
  const refusals: Record<string, string>[] = [
    { origin: attackerUrl.slice(0, -1) },
    { origin: 'http://attacker.example' },
    { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' },
    { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
    { 'sec-fetch-dest': 'iframe', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'same-site' },
  ];
  for (const headers of refusals) {
    const r = await raw('/__armature/project.json', { ...bearer(), ...headers });
    assert.equal(r.status, 403, JSON.stringify(headers));
  }
  // Its own page's requests pass.
  assert.equal((await raw('/__armature/project.json', { ...bearer(), origin: server.origin, 'sec-fetch-site': 'same-origin' })).status, 200);
});

test('every answer denies framing and sends no Referer, refusals included', async () => {
  for (const r of [await raw('/', bearer()), await raw('/'), await raw('/', { host: 'evil.example' }), await raw('/__armature/project.json', bearer())]) {
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
  }
});

test('the MCP config reaches the page without bearer tokens or environment', async () => {
  const r = await raw('/__armature/mcp-servers.json', bearer());
  assert.equal(r.status, 200);
  assert.ok(!r.body.includes(SECRET), r.body);
  assert.deepEqual(JSON.parse(r.body), { remote: { url: 'http://127.0.0.1:9/mcp', headers: {} }, local: { command: 'node', args: ['server.js'], env: {} } });
});

test('Chromium: a page on another port of 127.0.0.1 can neither frame the dashboard nor call it, with or without the token', async () => {
  const page = await browser.newPage();
  try {
    // The person opens the dashboard first: from now on the browser holds its cookie (SameSite does not tell ports apart).
    await page.goto(server.url, { waitUntil: 'load' });
    assert.equal(await page.title(), MARKER);
    const statuses: [string, number][] = [];
    // What the other page's requests got (the browser's own favicon request for the dashboard's tab aside).
    page.on('response', (r) => void (r.url().startsWith(server.origin) && !r.url().endsWith('/favicon.ico') && statuses.push([new URL(r.url()).pathname, r.status()])));
    attackerPage = `<!doctype html><title>attacker</title>
      <iframe id="plain" src="${server.origin}/" style="opacity:0.01"></iframe>
      <iframe id="with-token" src="${server.url}" style="opacity:0.01"></iframe>
      <script>
        window.results = Promise.all([
          fetch('${server.origin}/__armature/mcp-servers.json', { credentials: 'include' }).then((r) => r.status, (e) => 'blocked'),
          fetch('${server.origin}/__armature/project.json', { credentials: 'include', headers: { authorization: 'Bearer ${server.token}' } }).then((r) => r.status, (e) => 'blocked'),
          fetch('${server.origin}/__armature/project.json', { mode: 'no-cors', credentials: 'include' }).then((r) => r.type, (e) => 'blocked'),
        ]);
      </script>`;
    await page.goto(attackerUrl, { waitUntil: 'load' });
    const results = await page.evaluate(() => (window as unknown as { results: Promise<unknown[]> }).results);
    // Reading is blocked by the browser anyway (CORS); what matters is that the server answered none of them.
    assert.deepEqual(results.slice(0, 2), ['blocked', 'blocked']);
    await until(() => `the other page's requests to reach the server: ${JSON.stringify(statuses)}`, () => statuses.length >= 3);
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    assert.equal(frames.length, 2);
    for (const f of frames) {
      const text = await f.evaluate(() => document.body?.textContent ?? '').catch(() => '');
      assert.ok(!text.includes(MARKER), `a frame shows the dashboard: ${f.url()}`);
    }
    const answered = statuses.filter(([, s]) => s < 400);
    assert.deepEqual(answered, [], `the server answered the other page: ${JSON.stringify(statuses)}`);
    assert.ok(statuses.length >= 3, `the other page's requests reached the server: ${JSON.stringify(statuses)}`);
  } finally {
    await page.close();
  }
});
