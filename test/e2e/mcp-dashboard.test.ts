// `armature start --in-browser --mcp-config FILE`: the dashboard's McpClient, in Chromium, reaches an HTTP MCP
// server that allows its origin, says CORS when one does not, and explains that a stdio server
// needs Node. The server's tools work from the page and from Python in the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { referenceServers, startHttpEverything, type HttpEverything } from '../helpers/mcp-servers.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { launchChromium } from '../helpers/dashboard-driver.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const dir = tempDir('mcp-dashboard');
let withCors: HttpEverything;
let withoutCors: HttpEverything;
let dashboard: ChildProcess;
let browser: Browser;
let page: Page;

/** Text of the McpClient widget (shadow roots included). Plain source: the TypeScript loader's helpers do not exist in the page. */
const widgetText = () =>
  page.evaluate(`(() => {
    const deep = (n) => (n.nodeType === 3 ? n.textContent || '' : [...(n.shadowRoot || n).childNodes].map(deep).join(' '));
    const dash = document.querySelector('armature-dashboard') && document.querySelector('armature-dashboard').shadowRoot;
    const w = dash && dash.querySelector('mcp-client-widget');
    return w ? deep(w).replace(/\\s+/g, ' ') : '';
  })()`) as Promise<string>;

before(async () => {
  [withCors, withoutCors] = await Promise.all([startHttpEverything({ cors: true }), startHttpEverything()]);
  const config = join(dir, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { web: { url: withCors.url }, closed: { url: withoutCors.url }, local: referenceServers(dir).memory } }));
  // The page's own McpClient reaches the servers (a browser: HTTP with CORS only), so the page boots its system.
  dashboard = spawn(process.execPath, [bin, 'start', '--in-browser', '--port', '0', '--mcp-config', config], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    dashboard.stderr!.on('data', (d) => (out += d));
    dashboard.once('exit', (code) => reject(new Error(`armature start exited with ${code}: ${out}`)));
    dashboard.stdout!.on('data', (d) => {
      out += d;
      const m = /Armature dashboard: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(url, { waitUntil: 'load' });
});

after(async () => {
  await browser?.close();
  dashboard?.kill();
  await Promise.all([withCors?.close(), withoutCors?.close()]);
});

test('the page reaches a CORS-enabled server; the others fail with the reason, on the dashboard', async () => {
  let text = '';
  for (let i = 0; i < 300 && !/1 of 3 servers ready/.test(text); i++) {
    text = await widgetText();
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(text, /1 of 3 servers ready/, text);
  assert.match(text, /web http ?: http:\/\/127\.0\.0\.1:\d+\/mcp · mcp-servers\/everything 2\.0\.0 ● ready 18/);
  assert.match(text, /could not start: .*does not allow this page's origin \(CORS/);
  assert.match(text, /a stdio server \(.*server-memory.*\) can only be started from Node; in the browser, reach it over HTTP with "url"/);
  // Failed parts are failed modules: each has its error card on the dashboard too.
  const cards = await page.evaluate(() => [...document.querySelector('armature-dashboard')!.shadowRoot!.querySelectorAll('[data-module^="mcp:"]')].map((e) => e.getAttribute('data-module')));
  assert.deepEqual(cards.sort(), ['mcp:closed', 'mcp:local']);
});

test('its tools run from the page and from Python in the browser', async () => {
  const value = await page.evaluate(async () => {
    const sys = (globalThis as unknown as { armature: { tools: { executeTool(n: string, a: unknown): Promise<{ ok: boolean; value?: unknown }> } } }).armature;
    const direct = await sys.tools.executeTool('web.get-sum', { a: 20, b: 22 });
    const py = await sys.tools.executeTool('execute_python', { code: 'from tools.web import get_sum\nget_sum(1, 2)' });
    return [direct, py];
  });
  assert.deepEqual([value[0]!.ok, value[0]!.value], [true, 'The sum of 20 and 22 is 42.']);
  assert.equal((value[1]!.value as { value: string }).value, 'The sum of 1 and 2 is 3.');
});
