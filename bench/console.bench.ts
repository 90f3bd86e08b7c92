// The Python console on the served dashboard: stream 10 MB of stdout into it and report the
// longest main-thread stall (the widest gap between back-to-back zero-delay tasks; the long-task
// API only sees tasks over 50 ms), the long tasks, and the total time until it is shown.
import { withBenchPage } from './browser/run-page.ts';
import type { BenchRow } from './types.ts';

// Page-side code as plain source (no loader helpers may leak into evaluate()).
const CONSOLE = `(() => {
  const dash = document.querySelector('armature-dashboard');
  const widget = dash && dash.shadowRoot && dash.shadowRoot.querySelector('python-tool-widget');
  return widget && widget.shadowRoot && widget.shadowRoot.querySelector('python-console');
})()`;

const MEASURE = `(async () => {
  const longTasks = [];
  const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
  obs.observe({ type: 'longtask', buffered: false });
  // A chain of zero-delay tasks: the widest gap between two of them is the longest stretch the
  // page could not respond.
  const ping = new MessageChannel();
  let last = performance.now(), widest = 0, pinging = true;
  ping.port1.onmessage = () => {
    const t = performance.now();
    widest = Math.max(widest, t - last);
    last = t;
    if (pinging) ping.port2.postMessage(0);
  };
  ping.port2.postMessage(0);
  const el = ${CONSOLE};
  const t0 = performance.now();
  const r = await el.run('import sys\\nline = "y" * 99 + "\\\\n"\\nfor _ in range(104858):\\n    sys.stdout.write(line)');
  await el.updateComplete;
  await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
  const total = performance.now() - t0;
  await new Promise((res) => setTimeout(res, 50));
  pinging = false;
  obs.disconnect();
  return { ok: r.ok, total, longest: widest, count: longTasks.length };
})()`;

interface Measured {
  ok: boolean;
  total: number;
  longest: number;
  count: number;
}

export async function run(): Promise<BenchRow[]> {
  return withBenchPage(undefined, async (page, url) => {
    await page.goto(url);
    await page.waitForFunction('!!window.armature', { timeout: 120_000 });
    await page.evaluate('window.armature.resolve("PyodideRuntime").then((rt) => rt.init())');
    await page.waitForFunction(`!!${CONSOLE}`, { timeout: 60_000 });
    // One warm-up run, then three measured runs; the worst long task counts.
    await page.evaluate(`${CONSOLE}.run('print(1)')`);
    const runs: Measured[] = [];
    for (let i = 0; i < 3; i++) {
      const m = (await page.evaluate(MEASURE)) as Measured;
      if (!m.ok) throw new Error('console bench: the run failed');
      runs.push(m);
    }
    const totals = runs.map((r) => r.total).sort((a, b) => a - b);
    const longest = Math.max(...runs.map((r) => r.longest));
    return [
      { suite: 'console', name: '10 MB of stdout into the console: time until rendered (median of 3)', value: totals[1]!, unit: 'ms' },
      { suite: 'console', name: '10 MB of stdout into the console: longest main-thread stall (worst of 3)', value: longest, unit: 'ms', target: '<= 100 ms', pass: longest <= 100 },
      { suite: 'console', name: '10 MB of stdout into the console: long tasks over 50 ms (worst of 3)', value: Math.max(...runs.map((r) => r.count)), unit: 'tasks' },
    ];
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run()) console.log(JSON.stringify(r));
}
