// remoteView in Chromium, in a page served by the dashboard server attached to a Node system: the
// page authenticates with its cookie only, calls tools as the person, and receives the system's
// events and another process's live; a page without the cookie gets nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import { startServer, type RunningServer } from '../../src/server/serve.ts';
import { launchChromium } from '../helpers/dashboard-driver.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const dataDir = tempDir('remote-view-page');
const outDir = tempDir('remote-view-page-dist');
const hooks = fileURLToPath(new URL('../../src/platform/source-hooks.mjs', import.meta.url));
const childScript = fileURLToPath(new URL('../fixtures/journal-child.ts', import.meta.url));
let sys: ArmatureSystem;
let server: RunningServer;
let browser: Browser;
let page: Page;
let child: ChildProcess | undefined;

type Win = { view?: { callTool(n: string, a: unknown): Promise<{ ok: boolean }>; processes(): { id: string; endedAt?: number }[]; persona: { id: string }; mode: string; modules(): unknown[] }; received: { type: string; process?: string; payload: unknown }[]; viewError?: string };

before(async () => {
  await esbuild.build({ entryPoints: { page: fileURLToPath(new URL('../fixtures/remote-view-page.ts', import.meta.url)) }, outdir: outDir, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning' });
  sys = await boot({ persona: 'default', dataDir, journal: { command: 'start' } });
  server = await startServer({ system: sys, port: 0, outDir, html: '<!doctype html><meta charset="utf-8"><title>view</title><script type="module" src="/dist/page.js"></script>' });
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(server.url, { waitUntil: 'load' });
  await page.waitForFunction(() => !!(window as unknown as Win).view || !!(window as unknown as Win).viewError, { timeout: 30_000 });
});

after(async () => {
  if (child?.exitCode === null) child.kill('SIGKILL');
  await browser?.close();
  await server?.close();
  await sys?.dispose();
});

test('the page views the attached system through its cookie: persona, modules, a call as the person and its events', async () => {
  assert.equal(await page.evaluate(() => (window as unknown as Win).viewError), undefined);
  assert.deepEqual(await page.evaluate(() => [(window as unknown as Win).view!.mode, (window as unknown as Win).view!.persona.id, (window as unknown as Win).view!.modules().length]), ['attached', 'default', sys.modules.length]);
  assert.equal(await page.evaluate(() => document.querySelector('meta[name="armature-mode"]')?.getAttribute('content')), 'attached');
  const ok = await page.evaluate(() => (window as unknown as Win).view!.callTool('write_file', { path: 'from-page.txt', content: 'hello' }).then((r) => r.ok));
  assert.equal(ok, true);
  await page.waitForFunction(() => (window as unknown as Win).received.some((r) => r.type === 'workspace:written' && (r.payload as { path: string }).path === 'from-page.txt'), { timeout: 10_000 });
  // Written in the Node system, not in the page.
  const read = await sys.tools.executeTool<{ content: string }>('read_file', { path: 'from-page.txt' });
  assert.equal(read.ok && read.value.content, 'hello');
});

test('another process on the folder streams into the page live, and shows ended when killed', async () => {
  child = spawn(process.execPath, ['--import', hooks, childScript, dataDir, 'agent'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const id = await new Promise<string>((resolve) => {
    let out = '';
    child!.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  await page.waitForFunction((pid) => (window as unknown as Win).received.filter((r) => r.process === pid && r.type === 'python:stdout').length > 3, { timeout: 20_000 }, id);
  child.kill('SIGKILL');
  await page.waitForFunction((pid) => (window as unknown as Win).view!.processes().some((p) => p.id === pid && p.endedAt !== undefined), { timeout: 20_000 }, id);
});

test('a page without the cookie gets no view', async () => {
  const context = await browser.createBrowserContext();
  try {
    const other = await context.newPage();
    const status = await other.goto(`${server.origin}/`, { waitUntil: 'load' }).then((r) => r?.status());
    assert.equal(status, 401);
    const state = await other.evaluate((origin) => fetch(`${origin}/__armature/api/state`).then((r) => r.status), server.origin);
    assert.equal(state, 401);
  } finally {
    await context.close();
  }
});
