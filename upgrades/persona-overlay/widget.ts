import { html, nothing } from 'lit';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { ModuleWidget, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { metadata, type PersonaOverlayApi } from './index.ts';

/**
 * `<persona-overlay-widget>`: what an agent added to the persona in force — the agent-made upgrades
 * it runs, the tools it allows and denies — with the overlay's version and change. Its history,
 * approvals and rollbacks are on the changes widget. Updated from change events.
 */
export class PersonaOverlayWidget extends ModuleWidget<PersonaOverlayApi> {
  /** When the overlay last changed, as this page saw it happen. */
  private lastActivity: number | undefined;
  private readonly changes = new BusController(this, () => this.bus, ['change:activated', 'change:rolled-back'], (r) => {
    if ((r.payload as { change: { kind: string } }).change.kind === 'persona') this.lastActivity = r.at;
  });

  protected override onContext(): void {
    this.changes.connect();
  }

  getStatus(): WidgetStatus {
    const o = this.context?.api?.overlay();
    return {
      state: this.context?.report.state === 'failed' ? 'error' : o ? 'active' : 'idle',
      primaryMetric: o ? `overlay v${o.version}` : 'no overlay',
      secondaryMetric: o ? `${o.add_upgrades.length} upgrades, +${o.add_tools.length} −${o.remove_tools.length} tools` : 'the persona is its file\'s',
      // An overlay brought back at boot came into force before this page: its record says when.
      lastActivity: Math.max(this.lastActivity ?? 0, o?.activatedAt ?? 0) || undefined,
    };
  }

  protected override renderBody() {
    const o = this.context?.api?.overlay();
    if (!o) return html`<p class="empty">An agent extends its persona with what it built through update_persona; the persona files in modules/ are never rewritten.</p>`;
    const row = (label: string, items: string[]) => (items.length ? html`<tr><th>${label}</th><td>${items.join(', ')}</td></tr>` : nothing);
    return html`<table aria-label="persona overlay">
      <tbody>${row('runs', o.add_upgrades)}${row('allows', o.add_tools)}${row('denies', o.remove_tools)}<tr><th>change</th><td>${o.change}</td></tr></tbody>
    </table>`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, PersonaOverlayWidget);
