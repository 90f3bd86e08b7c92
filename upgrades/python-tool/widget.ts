import { css, html, nothing } from 'lit';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import './console.ts';
import { metadata } from './index.ts';
import type { PythonToolSnapshot } from './snapshot.ts';

/**
 * PythonTool widget: executions, success rate, mean time, recent errors, the tool catalog,
 * installed packages with versions, the last execution as relative time — from PythonTool's
 * snapshot — and the Python console.
 */
export class PythonToolWidget extends ModuleWidget<PythonToolSnapshot> {
  static override styles = [
    widgetStyles,
    css`
      .grid { display: grid; grid-template-columns: repeat(4, 1fr); gap: 6px; margin: 8px 0; }
      .stat { border: 1px solid #eceff4; border-radius: 6px; padding: 4px 6px; }
      .stat b { display: block; font-size: 16px; }
      .stat span { font-size: 11px; color: #4a5366; }
      details { margin-top: 6px; font-size: 12px; }
      summary { cursor: pointer; }
      ul { margin: 4px 0; padding-left: 18px; }
      python-console { margin-top: 10px; }
    `,
  ];

  getStatus(): WidgetStatus {
    const snap = this.snapshot;
    if (!snap) return { state: this.context?.report.state === 'failed' ? 'error' : 'loading', primaryMetric: this.context?.report.state === 'failed' ? 'unavailable' : '…', secondaryMetric: '' };
    const s = snap.stats;
    const rt = snap.runtime;
    // Sessions (agent runs, MCP sessions) run on the pool's runtimes, not on the shared one.
    const sessionRuns = rt.pool?.busy ?? 0;
    const busy = rt.status === 'busy' || sessionRuns > 0;
    // When only sessions ran, the shared runtime never started: Python is up in the pool's runtimes.
    const up = rt.status === 'ready' || rt.status === 'busy' || (rt.status === 'idle' && (rt.pool?.workers ?? 0) > 0);
    const state = rt.status === 'error' ? 'error' : busy ? 'active' : up ? (s.lastExecution && !s.lastExecution.ok ? 'warning' : 'idle') : 'loading';
    const ready = up ? 'Python ready' : `Python ${rt.status}`;
    return {
      state,
      primaryMetric: counted(s.executions, 'execution'),
      secondaryMetric: sessionRuns ? `${ready} · ${counted(sessionRuns, 'session')} running` : ready,
      lastActivity: s.lastExecution?.at,
      message: state === 'warning' && s.errors[0] ? `Last run failed: ${s.errors[0].type}${s.errors[0].message ? `: ${s.errors[0].message}` : ''}` : undefined,
    };
  }

  protected override renderBody() {
    const snap = this.snapshot;
    if (!snap || !this.context) return nothing;
    const s = snap.stats;
    const { catalog, packages } = snap;
    return html`
      <div class="grid" aria-label="execution statistics">
        <div class="stat"><b>${s.executions}</b><span>executions</span></div>
        <div class="stat"><b>${s.successRate === undefined ? '—' : `${Math.round(s.successRate * 100)}%`}</b><span>success rate</span></div>
        <div class="stat"><b>${s.executions ? `${s.meanMs.toFixed(0)} ms` : '—'}</b><span>mean time</span></div>
        <div class="stat"><b>${s.failures}</b><span>errors</span></div>
      </div>
      <div class="secondary">Last execution: ${s.lastExecution ? html`${formatRelative(s.lastExecution.at)} (${s.lastExecution.ok ? '✓ ok' : '✖ failed'}, ${s.lastExecution.durationMs.toFixed(0)} ms)` : 'never'}</div>
      ${s.errors.length
        ? html`<details><summary>Recent errors (${s.errors.length})</summary><ul>${s.errors.map((e) => html`<li>${formatRelative(e.at)}: ${e.type}${e.message ? `: ${e.message}` : ''}</li>`)}</ul></details>`
        : nothing}
      <details>
        <summary>Tool catalog (${catalog.tools.length} tools, ${catalog.namespaces.length} namespaces from Python)</summary>
        <ul>${catalog.tools.map((t) => html`<li><code>${t.name}</code> — ${t.description}</li>`)}</ul>
        <ul>${catalog.namespaces.map((n) => html`<li><code>from tools.${n.namespace} import</code> ${n.tools.join(', ')}${n.more ? ` and ${n.more} more` : ''}</li>`)}</ul>
      </details>
      <details>
        <summary>Installed packages (${packages.length})</summary>
        ${packages.length ? html`<ul>${packages.map((p) => html`<li>${p.name} ${p.version}</li>`)}</ul>` : html`<p class="empty">None beyond the standard library.</p>`}
      </details>
      <python-console .view=${this.context.view}></python-console>
    `;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, PythonToolWidget);
