/**
 * Drives the served dashboard in Chromium as a person and an agent would: launches the browser,
 * starts from an empty workspace, calls tools through the booted system, reads widgets (shadow
 * roots pierced) and presses the changes widget's buttons with a real click.
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';

/** The system Chromium, headless, with nothing reaching out on its own. */
export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export { value } from './tool-value.ts';

type Win = { armature?: { tools: { executeTool(n: string, a: unknown, o: unknown): Promise<unknown> } } };

/** A page showing the dashboard, and what a test does on it. */
export class DashboardDriver {
  /** `page` shows the dashboard; `clue` is quoted when a wait times out (what the page shows). */
  constructor(
    readonly page: Page,
    private readonly clue: () => Promise<string> = async () => '',
  ) {}

  /** Opens `url` on an empty workspace (its IndexedDB deleted) and waits for the system. */
  async openEmpty(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: 'load' });
    await this.page.evaluate(() => new Promise((r) => { const req = indexedDB.deleteDatabase('armature:workspace'); req.onsuccess = req.onerror = req.onblocked = () => r(null); }));
    await this.page.reload({ waitUntil: 'load' });
    await this.booted();
  }

  /** Resolves once the page's system has booted. */
  async booted(): Promise<void> {
    await this.page.waitForFunction(() => !!(window as unknown as Win).armature, { timeout: 90_000 });
  }

  /** Calls a tool in the page through the booted system, as `caller`. */
  call<T = unknown>(name: string, args: unknown, caller: string): Promise<ToolResult<T>> {
    return this.page.evaluate((n, a, c) => (window as unknown as Required<Win>).armature.tools.executeTool(n, a, { caller: c }), name, args, caller) as Promise<ToolResult<T>>;
  }

  /** Text of an element inside the dashboard (`selector` below `armature-dashboard`, `>>>` pierces), or '' when absent. */
  async textOf(selector: string): Promise<string> {
    return ((await (await this.page.$(`armature-dashboard >>> ${selector}`))?.evaluate((e) => e.textContent)) ?? '').replace(/\s+/g, ' ');
  }

  /** Polls `check` until it holds; past `timeout` fails naming `what` and the page's clue. */
  async waitFor(what: string, check: () => Promise<boolean>, timeout = 90_000): Promise<void> {
    const t0 = Date.now();
    while (Date.now() - t0 < timeout) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${what}; the page says: ${(await this.clue()).slice(0, 800)}`);
  }

  /** Presses a button of one change on the changes widget, as a person does (a real mouse click). */
  async press(change: string, action: 'approve' | 'reject' | 'rollback'): Promise<void> {
    const selector = `armature-dashboard >>> changes-widget >>> li[data-change="${change}"] button[data-action="${action}"]`;
    await this.waitFor(`the ${action} button of ${change}`, async () => !!(await this.page.$(selector)));
    const button = (await this.page.$(selector))!;
    await button.scrollIntoView();
    await button.click();
  }

  /** The status the changes widget shows for `change`, or undefined when it is not listed. */
  statusOf(change: string): Promise<string | undefined> {
    return this.page.$eval(`armature-dashboard >>> changes-widget >>> li[data-change="${change}"]`, (e) => (e as HTMLElement).dataset.status).catch(() => undefined);
  }
}
