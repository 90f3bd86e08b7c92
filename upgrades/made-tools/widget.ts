import { html } from 'lit';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { metadata } from './index.ts';
import type { MadeToolsSnapshot } from './snapshot.ts';

/**
 * `<made-tools-widget>`: the tools agents made that are in force — language, version, calls,
 * errors and what the canary saw of their first calls — from the MadeTools snapshot. Their
 * history, code and approvals are on the changes widget.
 */
export class MadeToolsWidget extends ModuleWidget<MadeToolsSnapshot> {
  private lastActivity: number | undefined;
  private readonly events = new BusController(
    this,
    () => this.feed,
    ['tool:registered', 'tool:unregistered', 'tool:finished', 'change:activated', 'change:rolled-back', 'module:disposed'],
    (r) => {
      const p = r.payload as { name?: string; module?: string; change?: { kind: string }; parent?: string };
      if (p.name?.includes('.') || p.module === metadata.id || p.change?.kind === 'tool' || p.parent === metadata.id) this.lastActivity = r.at;
    },
  );

  protected override onContext(): void {
    this.events.connect();
  }

  getStatus(): WidgetStatus {
    const tools = this.snapshot?.tools ?? [];
    const calls = tools.reduce((n, t) => n + t.calls, 0);
    const errors = tools.reduce((n, t) => n + t.errors, 0);
    return {
      state: this.context?.report.state === 'failed' ? 'error' : tools.some((t) => t.canary.failures) ? 'warning' : tools.length ? 'active' : 'idle',
      primaryMetric: `${counted(this.snapshot?.total ?? 0, 'tool')} in force`,
      secondaryMetric: `${counted(calls, 'call')}, ${counted(errors, 'error')}`,
      lastActivity: this.lastActivity,
    };
  }

  protected override renderBody() {
    const tools = this.snapshot?.tools ?? [];
    if (!tools.length) return html`<p class="empty">No agent-made tool is in force. An agent makes one with create_tool; the changes widget shows each version.</p>`;
    return html`<table aria-label="agent-made tools in force">
      <thead><tr><th>tool</th><th>language</th><th>version</th><th class="num">calls</th><th class="num">errors</th><th>canary</th></tr></thead>
      <tbody>${tools.map(
        (t) => html`<tr>
          <td title=${t.description}>${t.name}</td>
          <td>${t.language}</td>
          <td>v${t.version}</td>
          <td class="num">${t.calls}</td>
          <td class="num ${t.errors ? 'fail' : ''}">${t.errors}</td>
          <td>${t.canary.watched >= t.canary.of ? 'passed' : `${t.canary.failures} failed of ${t.canary.watched}/${t.canary.of}`}</td>
        </tr>`,
      )}</tbody>
    </table>`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, MadeToolsWidget);
