/**
 * What a dashboard e2e suite of agent-made changes runs against: the dashboard built into its own
 * folder under `test-artifacts/` and served, a scripted model server, a probe server that counts
 * requests, and one Chromium page on the empty dashboard (a fresh IndexedDB), with its driver.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { projectRoot } from '../../src/platform/node.ts';
import { buildDashboard } from '../../src/server/build-dashboard.ts';
import { startServer, type RunningServer } from '../../src/server/serve.ts';
import { DashboardDriver, launchChromium } from './dashboard-driver.ts';
import { startProbe, type ProbeServer } from './probe-server.ts';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.ts';

/** Where suites keep their builds and screenshots. */
export const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

export interface DashboardStack {
  server: RunningServer;
  model: ScriptedModelServer;
  probe: ProbeServer;
  browser: Browser;
  page: Page;
  d: DashboardDriver;
  /** Closes the browser and the servers. */
  close(): Promise<void>;
}

/** Starts the stack; `name` names the build folder (`dist-<name>`), `height` the page's. */
export async function startDashboardStack(name: string, height: number): Promise<DashboardStack> {
  mkdirSync(artifacts, { recursive: true });
  const outDir = join(artifacts, `dist-${name}`);
  await buildDashboard({ root: projectRoot, outDir, minify: false });
  const server = await startServer({ outDir, port: 0 });
  const model = await startScriptedModelServer();
  const probe = await startProbe();
  const browser = await launchChromium();
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height });
  const d: DashboardDriver = new DashboardDriver(page, () => d.textOf('changes-widget >>> section.card'));
  await d.openEmpty(server.url);
  return {
    server,
    model,
    probe,
    browser,
    page,
    d,
    async close() {
      await browser.close();
      await server.close();
      await model.close();
      await probe.close();
    },
  };
}
