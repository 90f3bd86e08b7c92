import { html } from 'lit';
import { counted, ModuleWidget, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { metadata } from './index.ts';
import type { MadeUpgradesSnapshot } from './snapshot.ts';
// Each agent-made upgrade's own card is defined with its overview, from this folder's widget module.
import './upgrade-widget.ts';

/**
 * `<made-upgrades-widget>`: the agent-made upgrades in force — version, whether this persona runs
 * them, their tools and the blueprint each is built from. Each running one has a card of its own
 * (`<made-upgrade-widget>`); their history and approvals are on the changes widget.
 */
export class MadeUpgradesWidget extends ModuleWidget<MadeUpgradesSnapshot> {
  getStatus(): WidgetStatus {
    const all = this.snapshot?.upgrades ?? [];
    const running = all.filter((u) => u.running).length;
    return {
      state: this.context?.report.state === 'failed' ? 'error' : running ? 'active' : 'idle',
      primaryMetric: `${counted(this.snapshot?.total ?? 0, 'upgrade')} in force`,
      secondaryMetric: `${running} running in this persona`,
    };
  }

  protected override renderBody() {
    const all = this.snapshot?.upgrades ?? [];
    if (!all.length) return html`<p class="empty">No agent-made upgrade is in force. An agent writes a blueprint (create_blueprint), then builds it (create_upgrade) and runs it (update_persona).</p>`;
    return html`<table aria-label="agent-made upgrades in force">
      <thead><tr><th>upgrade</th><th>version</th><th>runs here</th><th>tools</th><th>blueprint</th></tr></thead>
      <tbody>${all.map((u) => html`<tr><td title=${u.title}>${u.id}</td><td>v${u.version}</td><td class=${u.running ? 'ok' : ''}>${u.running ? 'yes' : 'no'}</td><td>${u.tools.join(', ') || '—'}</td><td>${u.blueprint}</td></tr>`)}</tbody>
    </table>`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, MadeUpgradesWidget);
