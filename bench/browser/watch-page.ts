// The watch bench's page: a remote view of the attached server, measuring what arrives from
// another process: each latency event's delay (now - record.at), and during a burst the frames
// (requestAnimationFrame gaps) and long tasks. window.__watch holds the numbers.
import { remoteView } from '../../src/view/remote-view.ts';

const w = window as unknown as { __watch: { latencies: number[]; burst: number; gaps: number[]; longTasks: number[]; ready: boolean; error?: string } };
w.__watch = { latencies: [], burst: 0, gaps: [], longTasks: [], ready: false };
try {
  const view = await remoteView({ baseUrl: location.origin });
  view.events.on('python:stdout', (p, r) => {
    if (r.process === undefined) return;
    if (p.runId === 'lat') w.__watch.latencies.push(Date.now() - r.at);
    else if (p.runId === 'burst') w.__watch.burst++;
  });
  let last = performance.now();
  const frame = (t: number) => {
    w.__watch.gaps.push(t - last);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__watch.longTasks.push(e.duration);
  }).observe({ type: 'longtask', buffered: true });
  w.__watch.ready = true;
} catch (e) {
  w.__watch.error = String(e);
}
