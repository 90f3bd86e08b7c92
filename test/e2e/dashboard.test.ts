// End to end against the served dashboard, as a person uses it: the real esbuild bundle, the real
// server (cross-origin isolated), Pyodide in a Web Worker, driven in the system Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { buildDashboard } from '../../src/server/build-dashboard.ts';
import { startServer, type RunningServer } from '../../src/server/serve.ts';
import { projectRoot } from '../../src/platform/node.ts';
import { DashboardDriver, launchChromium } from '../helpers/dashboard-driver.ts';

const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
let server: RunningServer;
let browser: Browser;
let page: Page;
/** Responses of 400 or more the page got (status and URL). */
const failedRequests: string[] = [];

// Page-side helpers as plain source: functions passed to evaluate() must not carry the helpers
// the TypeScript loader adds to named functions.
const PAGE_HELPERS = `
window.__deepFind = function (sel, root) {
  root = root || document;
  var hit = root.querySelector(sel);
  if (hit) return hit;
  var all = root.querySelectorAll('*');
  for (var i = 0; i < all.length; i++) {
    if (all[i].shadowRoot) { var f = window.__deepFind(sel, all[i].shadowRoot); if (f) return f; }
  }
  return undefined;
};
window.__deepText = function (node) {
  var out = '';
  var kids = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
  if (node.nodeType === 3) return node.textContent;
  for (var i = 0; i < kids.length; i++) out += window.__deepText(kids[i]);
  return out;
};`;

/** Text of the first element matching `selector` anywhere, shadow roots included. */
function deepText(p: Page, selector: string): Promise<string> {
  return p.evaluate((sel) => {
    const w = window as unknown as { __deepFind(s: string): Element | undefined; __deepText(n: Node): string };
    const el = w.__deepFind(sel);
    return el ? w.__deepText(el) : '';
  }, selector);
}

async function waitForText(selector: string, pattern: RegExp, timeout = 60_000): Promise<string> {
  const t0 = Date.now();
  let last = '';
  while (Date.now() - t0 < timeout) {
    last = await deepText(page, selector);
    if (pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${selector} never matched ${pattern}; last text: ${last.slice(0, 300)}`);
}

/** The console's shadow root handle. */
async function consoleRoot() {
  const handle = await page.evaluateHandle(() => {
    const dash = document.querySelector('armature-dashboard')!.shadowRoot!;
    const widget = dash.querySelector('python-tool-widget')!.shadowRoot!;
    return widget.querySelector('python-console')!.shadowRoot!;
  });
  return handle;
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  const outDir = join(artifacts, 'dist');
  await buildDashboard({ root: projectRoot, outDir, minify: false });
  server = await startServer({ outDir, port: 0 });
  browser = await launchChromium();
  page = await browser.newPage();
  await page.evaluateOnNewDocument(PAGE_HELPERS);
  await page.setViewport({ width: 1400, height: 1100 });
  page.on('response', (r) => void (r.status() >= 400 && failedRequests.push(`${r.status()} ${r.url()}`)));
  // A fresh IndexedDB per run: the page persists the workspace across loads.
  await new DashboardDriver(page).openEmpty(server.url);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('a newcomer\'s load of the dashboard asks for nothing the server cannot give', async () => {
  // The page has booted (openEmpty waited for it): everything its boot asked for was served.
  assert.deepEqual(failedRequests, []);
  const res = await fetch(new URL('/__armature/mcp-servers.json', server.url));
  assert.equal(res.status, 204, 'no --mcp-config: nothing to hand on, and no error');
});

test('the server serves the confined worker\'s script with its CSP, and agent code runs in it', async () => {
  const res = await fetch(new URL('/__armature/sandbox-worker.js', server.url));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; script-src blob:; connect-src 'none'; worker-src 'none'");
  const result = await page.evaluate(async () => {
    // A bare Worker on the served script, driven through its protocol: init, then a call.
    const worker = new Worker('/__armature/sandbox-worker.js', { type: 'module' });
    const channel = new MessageChannel();
    const answers: unknown[] = [];
    const done = new Promise((resolve) => {
      channel.port1.onmessage = (e) => {
        answers.push(e.data);
        if (e.data.type === 'ready') channel.port1.postMessage({ type: 'call', id: 'k1', path: ['default'], args: [20] });
        if (e.data.type === 'result') resolve(e.data);
      };
    });
    worker.postMessage(
      { type: 'init', id: 'init', name: 'e2e', source: 'export default (n) => ({ n: n + 1, idb: typeof indexedDB, f: typeof fetch })', capabilities: [], network: 'none', maxMessageBytes: 65536 },
      [channel.port2],
    );
    const r = await done;
    worker.terminate();
    return r;
  });
  assert.deepEqual(result, { type: 'result', id: 'k1', ok: true, value: { n: 21, idb: 'undefined', f: 'function' } });
});

test('the page boots, is cross-origin isolated, and Python becomes ready with the shared-memory bridge', async () => {
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await waitForText('armature-dashboard', /ToolRunner[\s\S]*PyodideRuntime[\s\S]*PythonTool[\s\S]*Workspace[\s\S]*Blueprints/);
  await waitForText('pyodide-runtime-widget', /call_tool transport\s*shared-memory/, 90_000);
});

test('console: print and call_tool stream in, and the written file appears in the workspace widget', async () => {
  const root = await consoleRoot();
  const editor = (await root.evaluateHandle((r) => (r as ShadowRoot).querySelector('textarea')!)).asElement()! as unknown as import('puppeteer-core').ElementHandle<Element>;
  await editor.click();
  await editor.type('print("hi")\ncall_tool("write_file", {"path": "from-console.txt", "content": "written by Python"})\nprint("err line", file=__import__("sys").stderr)\n6 * 7');
  // Ctrl+Enter runs, as a keyboard user would.
  await page.keyboard.down('Control');
  await page.keyboard.press('Enter');
  await page.keyboard.up('Control');
  await waitForText('python-console', /value: 42/);
  const out = await root.evaluate((r) => [...(r as ShadowRoot).querySelectorAll('.out span')].map((s) => [s.className, s.textContent]));
  assert.deepEqual(out, [['stdout', 'hi\n'], ['stderr', 'err line\n']]);
  await waitForText('workspace-widget', /from-console\.txt/);
  await waitForText('tool-runner-widget', /write_file\s*Python/);
  await waitForText('python-tool-widget', /1 execution(?!s)[\s\S]*100%/);
  await waitForText('pyodide-runtime-widget', /Memory \(wasm heap\)\s*\d+ MB/);
  await page.screenshot({ path: join(artifacts, 'dashboard-after-run.png'), fullPage: true });
});

test('the Interrupt button stops `while True: pass`', async () => {
  const root = await consoleRoot();
  await root.evaluate((r) => {
    const ta = (r as ShadowRoot).querySelector('textarea')!;
    ta.value = 'while True: pass';
  });
  await root.evaluate((r) => (r as ShadowRoot).querySelector<HTMLButtonElement>('[data-control=run]')!.click());
  await waitForText('python-console', /Running…/);
  await new Promise((r) => setTimeout(r, 300));
  await root.evaluate((r) => (r as ShadowRoot).querySelector<HTMLButtonElement>('[data-control=interrupt]')!.click());
  const text = await waitForText('python-console', /KeyboardInterrupt/, 10_000);
  assert.match(text, /Hint: The run was interrupted/);
  await page.screenshot({ path: join(artifacts, 'dashboard-interrupted.png'), fullPage: true });
});

test('a reload restores Python from the start-up snapshot kept in Cache Storage', async () => {
  // The first load writes the snapshot in the background once Python is up: wait for it.
  const kept = await page.waitForFunction(
    () => caches.open('armature:pyodide-snapshot').then(async (c) => (await c.keys()).some((r) => r.url.endsWith('.snapshot'))),
    { timeout: 60_000, polling: 200 },
  );
  assert.equal(await kept.jsonValue(), true);
  await page.reload({ waitUntil: 'load' });
  await waitForText('pyodide-runtime-widget', /Started\s*from the start-up snapshot/, 90_000);
  const state = await page.evaluate(async () => {
    const sys = (window as unknown as { armature: { resolve(id: string): Promise<{ getState(): { fromSnapshot?: boolean; status: string } }> } }).armature;
    return (await sys.resolve('PyodideRuntime')).getState();
  });
  assert.deepEqual([state.fromSnapshot, state.status], [true, 'ready']);
  const root = await consoleRoot();
  await root.evaluate((r) => {
    (r as ShadowRoot).querySelector('textarea')!.value = 'print("after the reload")\n6 * 7';
  });
  await root.evaluate((r) => (r as ShadowRoot).querySelector<HTMLButtonElement>('[data-control=run]')!.click());
  await waitForText('python-console', /after the reload[\s\S]*value: 42/);
});
