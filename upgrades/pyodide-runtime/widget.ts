import { css, html, nothing } from 'lit';
import type { PythonLoadStage, PythonStatus } from '../../src/contracts/python-events.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetControl, type WidgetState, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { metadata } from './index.ts';
import type { PyodideRuntimeSnapshot } from './snapshot.ts';

const STAGES: { id: PythonLoadStage; label: string }[] = [
  { id: 'fetch', label: 'Fetch' },
  { id: 'compile', label: 'Compile' },
  { id: 'stdlib', label: 'Start Python' },
  { id: 'ready', label: 'Ready' },
];

const STATE_OF: Record<PythonStatus, WidgetState> = {
  idle: 'disabled',
  loading: 'loading',
  ready: 'idle',
  busy: 'active',
  restarting: 'warning',
  error: 'error',
};

/** Formats bytes for people. */
function mb(n: number | undefined): string {
  return n === undefined ? 'unknown' : `${(n / 1024 / 1024).toFixed(0)} MB`;
}

/**
 * PyodideRuntime widget: load progress by stage, state, call_tool transport, memory, the pool of
 * session runtimes (workers, busy, sessions, queue), from the runtime's snapshot and its
 * progress events; Start, Interrupt and Restart (the shared runtime) through PythonTool's
 * person-only tools.
 */
export class PyodideRuntimeWidget extends ModuleWidget<PyodideRuntimeSnapshot> {
  static override styles = [
    widgetStyles,
    css`
      .bar { display: flex; align-items: center; gap: 8px; margin-top: 8px; }
      progress { flex: 1; height: 10px; }
      ol.stages { display: flex; gap: 10px; list-style: none; padding: 0; margin: 6px 0 0; font-size: 12px; flex-wrap: wrap; }
      ol.stages li[data-done='true'] { color: #0a6b2f; }
      ol.stages li[data-current='true'] { font-weight: 600; }
      dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; font-size: 12px; margin: 8px 0 0; }
      dt { color: #4a5366; }
      dd { margin: 0; }
    `,
  ];

  /** The latest progress from the events, newer than the snapshot's while Python starts. */
  private progress: { stage: PythonLoadStage; percent: number; message?: string; at: number } | undefined;
  private lastActivity: number | undefined;
  private readonly events = new BusController(
    this,
    () => this.feed,
    ['python:progress', 'python:state', 'python:started', 'python:finished', 'python:pool'],
    (r) => {
      this.lastActivity = r.at;
      if (r.type === 'python:progress') this.progress = { ...(r.payload as { stage: PythonLoadStage; percent: number; message?: string }), at: r.at };
    },
  );

  protected override onContext(): void {
    this.events.connect();
  }

  /** Where start-up stands: the latest progress event, else the snapshot's. */
  private get startup(): { stage?: PythonLoadStage; percent: number; message: string } {
    const p = this.progress ?? this.snapshot?.progress;
    return { stage: p?.stage, percent: p?.percent ?? 0, message: p?.message ?? '' };
  }

  getStatus(): WidgetStatus {
    const s = this.snapshot;
    if (!s) return { state: 'error', primaryMetric: 'unavailable', secondaryMetric: '', message: 'The runtime module did not load.' };
    const pool = s.pool;
    // Runs in sessions (an agent run, an MCP client, a console) go to the pool's runtimes while the
    // shared one may idle or never start: the card is as busy as any of them, and counts every run.
    const sessionsBusy = !!pool?.busy && (s.status === 'idle' || s.status === 'ready');
    const state = sessionsBusy ? 'active' : s.status === 'idle' && pool?.workers ? 'idle' : STATE_OF[s.status];
    const primary =
      s.status === 'loading'
        ? `Loading ${Math.round(this.startup.percent)}%`
        : s.status === 'idle'
          ? pool?.workers
            ? `Python in ${counted(pool.workers, 'session worker')}`
            : 'Not started'
          : `Python ${s.pythonVersion ?? ''}`.trim();
    const sessionRuns = pool?.runs ?? 0;
    return {
      state,
      primaryMetric: primary,
      secondaryMetric: `${counted(s.executions + sessionRuns, 'run')}${sessionRuns ? ` (${sessionRuns} in sessions)` : ''} · ${counted(s.restarts, 'restart')}`,
      lastActivity: this.lastActivity,
      message: s.status === 'error' ? `${s.lastError?.type ?? 'Error'}: ${s.lastError?.message ?? 'the runtime failed'}` : undefined,
    };
  }

  override getControls(): WidgetControl[] {
    const s = this.snapshot;
    if (!s) return [];
    const controls: WidgetControl[] = [];
    // Start-up and restarts take seconds: their progress shows as events, the call is not awaited.
    if (s.status === 'idle' || s.status === 'error') controls.push({ id: 'start', label: s.status === 'error' ? 'Start again' : 'Start Python', action: () => void this.call('start_python') });
    controls.push({ id: 'interrupt', label: 'Interrupt', disabled: s.status !== 'busy', action: () => void this.call('interrupt_python') });
    controls.push({ id: 'restart', label: 'Restart', disabled: s.status === 'loading' || s.status === 'restarting', action: () => void this.call('restart_python') });
    return controls;
  }

  protected override renderBody() {
    const s = this.snapshot;
    if (!s) return nothing;
    const loading = s.status === 'loading' || s.status === 'restarting';
    const { stage, percent, message } = this.startup;
    const currentIndex = STAGES.findIndex((st) => st.id === stage);
    return html`
      ${loading || stage !== 'ready'
        ? html`<div class="bar">
              <progress max="100" .value=${percent} aria-label="Python start-up progress">${Math.round(percent)}%</progress>
              <span>${Math.round(percent)}%</span>
            </div>
            <ol class="stages" aria-label="start-up stages">
              ${STAGES.map(
                (st, i) =>
                  html`<li data-done=${i < currentIndex || stage === 'ready' ? 'true' : 'false'} data-current=${i === currentIndex ? 'true' : 'false'}>
                    ${i < currentIndex || stage === 'ready' ? '✓' : i === currentIndex ? '…' : '○'} ${st.label}
                  </li>`,
              )}
            </ol>
            ${message ? html`<div class="secondary">${message}</div>` : nothing}`
        : nothing}
      <dl>
        <dt>Shared runtime</dt><dd>${s.status}</dd>
        <dt>Pyodide</dt><dd>${s.pyodideVersion ?? '—'}</dd>
        <dt>Started</dt><dd>${s.fromSnapshot === undefined ? '—' : s.fromSnapshot ? 'from the start-up snapshot' : 'anew (no snapshot restored)'}</dd>
        <dt>call_tool transport</dt><dd>${s.transport ?? '—'}</dd>
        <dt>Memory (wasm heap)</dt><dd>${mb(s.memoryBytes)}</dd>
        <dt>Packages</dt><dd>${s.packages}</dd>
        ${s.pool
          ? html`<dt>Session workers</dt><dd data-pool="workers">${s.pool.workers} for ${s.pool.size} at once (${s.pool.busy} busy, ${s.pool.spares} warm)</dd>
              <dt>Sessions</dt><dd data-pool="sessions">${s.pool.sessions}</dd>
              <dt>Queue</dt><dd data-pool="queue">${s.pool.queued} waiting (limit ${s.pool.queueLimit})</dd>`
          : nothing}
      </dl>
    `;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, PyodideRuntimeWidget);
