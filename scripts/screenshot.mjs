#!/usr/bin/env node
// Opens a page in the system Chromium, waits, saves a screenshot and prints the page's console.
//   node scripts/screenshot.mjs URL OUT.png [waitSelector] [width] [height]
// CHROME_USER_DATA_DIR=DIR reuses a browser profile (its IndexedDB: a workspace built before).
import puppeteer from 'puppeteer-core';

const [url, out, waitFor, width = '1400', height = '1000'] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node scripts/screenshot.mjs URL OUT.png [waitSelector] [width] [height]');
  process.exit(2);
}
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  headless: true,
  ...(process.env.CHROME_USER_DATA_DIR ? { userDataDir: process.env.CHROME_USER_DATA_DIR } : {}),
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: Number(width), height: Number(height) });
  page.on('console', (m) => console.log(`[console.${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto(url, { waitUntil: 'load' });
  if (waitFor) await page.waitForFunction((sel) => {
    const find = (root, s) => root.querySelector(s) ?? [...root.querySelectorAll('*')].map((e) => e.shadowRoot && find(e.shadowRoot, s)).find(Boolean);
    return !!find(document, sel);
  }, { timeout: 60_000 }, waitFor);
  await new Promise((r) => setTimeout(r, 500));
  await page.screenshot({ path: out, fullPage: true });
  console.log(`saved ${out}`);
} finally {
  await browser.close();
}
