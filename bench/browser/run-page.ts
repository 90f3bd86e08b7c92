// Builds a bench page with esbuild, serves it with the dashboard server (cross-origin isolated),
// opens it in the system Chromium and returns what the page leaves on window.__bench.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import puppeteer, { type Page } from 'puppeteer-core';
import { BROWSER_EXTERNALS } from '../../src/server/build-dashboard.ts';
import { startServer } from '../../src/server/serve.ts';
import { projectRoot } from '../../src/platform/node.ts';

export const chromeArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/** Opens `url` path of a server for `entry` (a page script) and runs `drive` against it. */
export async function withBenchPage<T>(entry: string | undefined, drive: (page: Page, url: string) => Promise<T>): Promise<T> {
  const outDir = mkdtempSync(join(tmpdir(), 'armature-bench-'));
  const entries: Record<string, string> = { 'pyodide-worker': join(projectRoot, 'upgrades/pyodide-runtime/worker/main.ts') };
  if (entry) entries.page = join(projectRoot, entry);
  else entries.main = join(projectRoot, 'src/dashboard/main.ts');
  await esbuild.build({ entryPoints: entries, outdir: outDir, bundle: true, splitting: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, loader: { '.py': 'text' }, external: BROWSER_EXTERNALS, logLevel: 'warning' });
  const html = entry
    ? '<!doctype html><meta charset="utf-8"><title>bench</title><script type="module" src="/dist/page.js"></script>'
    : readFileSync(join(projectRoot, 'src/dashboard/index.html'), 'utf8');
  const server = await startServer({ outDir, port: 0, html });
  const browser = await puppeteer.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true, args: chromeArgs, protocolTimeout: 900_000 });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    return await drive(page, server.url);
  } finally {
    await browser.close();
    await server.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}
