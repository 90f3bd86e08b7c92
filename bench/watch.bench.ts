// #29: watching other processes from the dashboard. Another process (a bus with its journal, as
// every booted process keeps) emits events; a page in Chromium, a remote view of the dashboard
// server attached to the data folder, receives them. Measured side by side in one run: the
// latency from the other process's bus to the page (p50, p99; target p50 <= 50 ms), the same to a
// Node client of the same wire, and a burst of 10,000 python:stdout lines: time until all arrived,
// frames over 100 ms and the longest (target none over 200 ms), and the memory of the server and
// the page before and after (bounded: the feed and the view keep a bounded history).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import puppeteer from 'puppeteer-core';
import { createEventBus } from '../src/kernel/event-bus.ts';
import { openJournal } from '../src/kernel/journal/journal-writer.ts';
import { startServer } from '../src/server/serve.ts';
import { remoteView } from '../src/view/remote-view.ts';
import type { ArmatureSystem } from '../src/kernel/boot/boot.ts';
import { chromeArgs } from './browser/run-page.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

const suite = 'watch';
const hooks = fileURLToPath(new URL('../src/platform/source-hooks.mjs', import.meta.url));
const emitterScript = fileURLToPath(new URL('./browser/journal-emitter.ts', import.meta.url));

/** A stand-in for the attached system: the server needs its bus, modules and tools, and its data folder. */
function standIn(dataDir: string): ArmatureSystem {
  const bus = createEventBus();
  return {
    persona: { id: 'bench', name: 'Bench', description: '', upgrades: [], tools: [] },
    safe: false,
    bus,
    platform: { kind: 'node', dataDir },
    modules: [],
    tools: { getToolDeclarations: () => [], executeTool: async () => ({ ok: false, error: { code: 'NONE', message: 'none' }, durationMs: 0 }) },
  } as unknown as ArmatureSystem;
}

/** What the journal costs the process that keeps it: µs per emitted tool:finished event, with and without it (median of 5 rounds of 20,000). */
async function emitCost(dataDir: string): Promise<BenchRow[]> {
  const rounds = (journal: boolean) => {
    const out: number[] = [];
    for (let r = 0; r < 5; r++) {
      const bus = createEventBus();
      const j = journal ? openJournal({ dataDir, persona: 'bench', bus, env: process.env }) : undefined;
      const n = 20_000;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) bus.emit('tool:finished', { callId: `c${i}`, name: 'read_file', caller: 'agent', ok: true, durationMs: 0.2 });
      j?.flush();
      out.push(((performance.now() - t0) * 1000) / n);
      j?.dispose();
    }
    return out;
  };
  rounds(true);
  const without = rounds(false);
  const withJournal = rounds(true);
  return [
    medianRow(suite, 'bus emit, no journal (µs per event, median of 5 x 20,000)', without, 'µs'),
    medianRow(suite, 'bus emit with this process\'s journal: serialize, mask, batch, write (µs per event, median of 5 x 20,000)', withJournal, 'µs'),
  ];
}

export async function run(): Promise<BenchRow[]> {
  // First, and apart: what the journal costs the process that keeps it.
  const emitDir = mkdtempSync(join(tmpdir(), 'armature-watch-bench-emit-'));
  const emitRows = await emitCost(emitDir).finally(() => rmSync(emitDir, { recursive: true, force: true }));
  const dataDir = mkdtempSync(join(tmpdir(), 'armature-watch-bench-'));
  const outDir = mkdtempSync(join(tmpdir(), 'armature-watch-bench-dist-'));
  await esbuild.build({ entryPoints: { page: fileURLToPath(new URL('./browser/watch-page.ts', import.meta.url)) }, outdir: outDir, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'warning' });
  const server = await startServer({ system: standIn(dataDir), port: 0, outDir, html: '<!doctype html><meta charset="utf-8"><title>watch bench</title><script type="module" src="/dist/page.js"></script>' });
  const emitter = spawn(process.execPath, ['--import', hooks, emitterScript, dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: emitter.stdout! })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value);
  const command = async (line: string) => {
    emitter.stdin!.write(`${line}\n`);
    while ((await next()) !== 'done');
  };
  const browser = await puppeteer.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true, args: chromeArgs, protocolTimeout: 600_000 });
  const node = await remoteView({ baseUrl: server.origin, token: server.token });
  const nodeLatencies: number[] = [];
  node.events.on('python:stdout', (p, r) => void (r.process && p.runId === 'lat' && nodeLatencies.push(Date.now() - r.at)));
  try {
    await next(); // ready
    const page = await browser.newPage();
    await page.goto(server.url, { waitUntil: 'load' });
    await page.waitForFunction('window.__watch && (window.__watch.ready || window.__watch.error)', { timeout: 60_000 });
    const error = await page.evaluate('window.__watch.error');
    if (error) throw new Error(`watch bench page: ${error}`);
    // Warm-up, then the measured events, 20 ms apart.
    await command('lat 20 20');
    await page.evaluate('window.__watch.latencies = []');
    nodeLatencies.length = 0;
    const n = 500;
    await command(`lat ${n} 20`);
    await page.waitForFunction(`window.__watch.latencies.length >= ${n}`, { timeout: 60_000 });
    const latencies = (await page.evaluate('window.__watch.latencies')) as number[];

    const cdp = await page.createCDPSession();
    await cdp.send('Performance.enable');
    const heap = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / 1e6;
    await cdp.send('HeapProfiler.collectGarbage');
    const pageBefore = await heap();
    global.gc?.();
    const serverBefore = process.memoryUsage().heapUsed / 1e6;
    await page.evaluate('window.__watch.gaps = []; window.__watch.longTasks = []; window.__watch.burst = 0');
    const lines10k = 10_000;
    const t0 = performance.now();
    await command(`burst ${lines10k}`);
    await page.waitForFunction(`window.__watch.burst >= ${lines10k}`, { timeout: 120_000, polling: 50 });
    const arrivedMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 500));
    const gaps = (await page.evaluate('window.__watch.gaps')) as number[];
    const longTasks = (await page.evaluate('window.__watch.longTasks')) as number[];
    const serverPeak = process.memoryUsage().heapUsed / 1e6;
    await cdp.send('HeapProfiler.collectGarbage');
    const pageAfter = await heap();
    global.gc?.();
    const serverAfter = process.memoryUsage().heapUsed / 1e6;
    const over100 = gaps.filter((g) => g > 100).length;
    const longest = Math.max(0, ...gaps);
    return [
      ...emitRows,
      { suite, name: `other process's bus -> page (Chromium, remote view): latency p50 of ${n}`, value: percentile(latencies, 50), unit: 'ms', range: [Math.min(...latencies), Math.max(...latencies)], target: '<= 50 ms', pass: percentile(latencies, 50) <= 50 },
      { suite, name: `other process's bus -> page (Chromium, remote view): latency p99 of ${n}`, value: percentile(latencies, 99), unit: 'ms' },
      { suite, name: `other process's bus -> Node client of the same wire: latency p50 of ${n}`, value: percentile(nodeLatencies, 50), unit: 'ms', range: [Math.min(...nodeLatencies), Math.max(...nodeLatencies)] },
      { suite, name: `other process's bus -> Node client of the same wire: latency p99 of ${n}`, value: percentile(nodeLatencies, 99), unit: 'ms' },
      { suite, name: `burst of ${lines10k} python:stdout lines from another process: all on the page after`, value: arrivedMs, unit: 'ms' },
      { suite, name: `burst of ${lines10k} lines: frames over 100 ms on the page`, value: over100, unit: 'frames' },
      { suite, name: `burst of ${lines10k} lines: longest frame on the page`, value: longest, unit: 'ms', target: '<= 200 ms', pass: longest <= 200 },
      { suite, name: `burst of ${lines10k} lines: long tasks (> 50 ms) on the page`, value: longTasks.length, unit: 'tasks' },
      { suite, name: `burst of ${lines10k} lines: page JS heap before -> after (after GC)`, value: pageAfter - pageBefore, unit: 'MB', range: [pageBefore, pageAfter] },
      { suite, name: `burst of ${lines10k} lines: server heap growth at its peak (before ${serverBefore.toFixed(0)} MB)`, value: serverPeak - serverBefore, unit: 'MB' },
      { suite, name: `burst of ${lines10k} lines: server heap after minus before${global.gc ? ' (after GC)' : ''}`, value: serverAfter - serverBefore, unit: 'MB' },
    ];
  } finally {
    node.close();
    emitter.stdin!.write('quit\n');
    await browser.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
