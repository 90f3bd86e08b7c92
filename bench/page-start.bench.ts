// The served dashboard in Chromium, from navigation to Python ready: a first visit (a fresh
// profile: nothing cached), a reload that restores the start-up snapshot from Cache Storage, and
// a reload with ?snapshot=off (HTTP cache warm, Python started anew). Each sample is a new browser.
import puppeteer, { type Page } from 'puppeteer-core';
import { chromeArgs, withBenchPage } from './browser/run-page.ts';
import { medianRow, type BenchRow } from './types.ts';

const suite = 'page-start';

/**
 * ms from navigation start to the dashboard's PyodideRuntime reporting `ready`, from the bus
 * history (wall-clock stamps against the page's time origin), and whether it restored a snapshot.
 */
const READY = `(async () => {
  const sys = window.armature;
  if (!sys) return undefined;
  const ready = sys.bus.history(['python:state']).find((r) => r.payload.status === 'ready');
  if (!ready) return undefined;
  const rt = await sys.resolve('PyodideRuntime');
  return { ms: ready.at - performance.timeOrigin, fromSnapshot: rt.getState().fromSnapshot };
})()`;

async function loadAndWait(page: Page, url: string): Promise<{ ms: number; fromSnapshot: boolean }> {
  await page.goto(url, { waitUntil: 'load' });
  const handle = await page.waitForFunction(READY, { timeout: 120_000, polling: 50 });
  return (await handle.jsonValue()) as { ms: number; fromSnapshot: boolean };
}

/** Waits until the first visit has written its snapshot to Cache Storage (in the background). */
async function snapshotKept(page: Page): Promise<void> {
  await page.waitForFunction(
    `caches.open('armature:pyodide-snapshot').then(async (c) => (await c.keys()).some((r) => r.url.endsWith('.snapshot')))`,
    { timeout: 120_000, polling: 100 },
  );
}

export async function run(samples = 5): Promise<BenchRow[]> {
  return withBenchPage(undefined, async (_page, url) => {
    const first: number[] = [];
    const restored: number[] = [];
    const anew: number[] = [];
    for (let i = 0; i < samples; i++) {
      // A new browser is a fresh profile: no HTTP cache, no Cache Storage.
      const browser = await puppeteer.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true, args: chromeArgs });
      try {
        const page = await browser.newPage();
        const visit = await loadAndWait(page, url);
        if (visit.fromSnapshot) throw new Error('page-start bench: a first visit restored a snapshot');
        first.push(visit.ms);
        await snapshotKept(page);
        const reload = await loadAndWait(page, url);
        if (!reload.fromSnapshot) throw new Error('page-start bench: the reload did not restore the snapshot');
        restored.push(reload.ms);
        const off = await loadAndWait(page, `${url}&snapshot=off`);
        if (off.fromSnapshot) throw new Error('page-start bench: ?snapshot=off restored a snapshot');
        anew.push(off.ms);
      } finally {
        await browser.close();
      }
    }
    return [
      medianRow(suite, `navigation to Python ready, first visit (nothing cached), median of ${samples}`, first, 'ms'),
      medianRow(suite, `navigation to Python ready, reload restoring the snapshot from Cache Storage, median of ${samples}`, restored, 'ms', {
        text: '<= 800 ms',
        pass: (m) => m <= 800,
      }),
      medianRow(suite, `navigation to Python ready, reload with ?snapshot=off (HTTP cache warm), median of ${samples}`, anew, 'ms'),
    ];
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
