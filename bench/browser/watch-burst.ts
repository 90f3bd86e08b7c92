// The dashboard attached to a data folder, as its page renders what the server's stream
// delivers: another process's agent run whose execute_python prints N lines, one record a line.
// `window.burst({ lines, perTask })` delivers them (each in its own task, as stream messages
// arrive, or all in one task) and measures the frames while they are rendered.
import type { ModuleReport } from '../../src/kernel/boot/loader.ts';
import '../../src/widgets/dashboard.ts';
import type { ArmatureDashboard } from '../../src/widgets/dashboard.ts';
import { recordedView } from '../../test/helpers/recorded-view.ts';

const report: ModuleReport = { id: 'Agent', state: 'loaded', durationMs: 3, category: 'agent', widget: 'agent-widget', blueprint: '0x000050', version: '1.0.0', folder: 'agent' };

let round = 0;

/** Waits for the next message of a channel: a task of its own, after the page could render. */
const nextTask = (() => {
  const ch = new MessageChannel();
  const waiting: (() => void)[] = [];
  ch.port1.onmessage = () => waiting.shift()?.();
  return () => new Promise<void>((r) => (waiting.push(r), ch.port2.postMessage(0)));
})();

async function burst(o: { lines: number; perTask: boolean; control?: boolean }) {
  const view = recordedView({ mode: 'attached', modules: [report] });
  view.setStatus('Agent', { settings: { source: 'persona', hasKey: false, keyStorage: 'environment' }, active: [], runs: [], moreRuns: false });
  view.startProcess({ id: 'p-2', pid: 4242, command: 'agent', persona: 'default', startedAt: Date.now() });
  document.body.replaceChildren();
  const dash = document.createElement('armature-dashboard') as ArmatureDashboard;
  dash.view = view;
  document.body.append(dash);
  while (!dash.shadowRoot?.querySelector('agent-widget')) await new Promise((r) => setTimeout(r, 10));
  const runId = `run-20260301-101500-burst${++round}`;
  const call = `${runId}/1/c1`;
  view.emit('agent:run-started', { runId, goal: 'print a lot', persona: 'default', toolMode: 'code', maxSteps: 8, continued: false }, 'p-2');
  view.emit('agent:tool-called', { runId, step: 1, toolCallId: 'c1', name: 'execute_python', args: { code: 'for i in range(N): print(i)' }, pythonRunId: call }, 'p-2');
  const panel = dash.shadowRoot!.querySelector('agent-widget')!;
  const output = () => panel.shadowRoot?.querySelector('agent-transcript')?.shadowRoot?.querySelector('.output')?.textContent ?? '';
  while (!panel.shadowRoot?.querySelector('agent-transcript')?.shadowRoot?.querySelector('details.call')) await new Promise((r) => setTimeout(r, 10));

  const heap = () => (performance as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0;
  const heapBefore = heap();
  const frames: number[] = [];
  let last = performance.now();
  let measuring = true;
  const frame = (t: number) => {
    frames.push(t - last);
    last = t;
    if (measuring) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const t0 = performance.now();
  for (let i = 0; i < o.lines; i++) {
    // The control delivers nothing: the same tasks, to tell the machine's own stalls from the page's.
    if (!o.control) view.emit('python:stdout', { runId: call, chunk: `line ${i}\n` }, 'p-2');
    if (o.perTask) await nextTask();
  }
  const lastLine = `line ${o.lines - 1}\n`;
  while (!o.control && !output().endsWith(lastLine)) await new Promise((r) => requestAnimationFrame(r));
  const total = performance.now() - t0;
  measuring = false;
  await new Promise((r) => setTimeout(r, 50));
  return { total, framesOver100: frames.filter((f) => f > 100).length, longestFrame: Math.max(...frames), frames: frames.length, shownChars: output().length, heapGrowth: heap() - heapBefore };
}

(globalThis as { burst?: typeof burst }).burst = burst;
(globalThis as { __bench?: unknown }).__bench = { ready: true };
