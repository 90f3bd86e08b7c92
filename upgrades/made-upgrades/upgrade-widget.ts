import { css, html, nothing } from 'lit';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import { ModuleWidget, widgetStyles, type WidgetControl, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { MADE_UPGRADE_WIDGET } from './upgrade-kind.ts';
import type { MadeUpgradeCardSnapshot } from './snapshot.ts';
import { errorLine } from '../../src/kernel/errors.ts';

/** How many log lines the card shows (the upgrade keeps more). */
const SHOWN_LOG = 8;

/**
 * `<made-upgrade-widget>`: the card of one agent-made upgrade. A trusted, generic widget: it
 * renders only what the upgrade reported with `ctx.status` — state, a primary and a secondary
 * metric, a message, a small table, recent log lines — as the part's own snapshot
 * (`upgrade:<id>`), and buttons that call the upgrade's own tools as the person (`ui`). Every
 * string is a text binding: no HTML or script from the agent reaches the page.
 */
export class MadeUpgradeWidget extends ModuleWidget<MadeUpgradeCardSnapshot> {
  static override styles = [widgetStyles, css`
    ol.log { list-style: none; margin: 6px 0 0; padding: 6px 8px; background: #f6f8fb; border-radius: 4px; font: 12px/1.4 ui-monospace, monospace; max-height: 160px; overflow: auto; }
    ol.log li { white-space: pre-wrap; word-break: break-word; }
    .result { font-size: 12px; margin: 6px 0 0; white-space: pre-wrap; word-break: break-word; }
  `];
  static override properties = { ...ModuleWidget.properties, lastResult: { state: true } };
  declare lastResult: { label: string; result: ToolResult } | undefined;

  /** The upgrade's id (the part id without `upgrade:`). */
  private get upgradeId(): string {
    return (this.context?.moduleId ?? '').replace(/^upgrade:/, '');
  }

  /** What the upgrade reports, while it runs. */
  private get card(): MadeUpgradeCardSnapshot | undefined {
    return this.context?.report.state === 'failed' ? undefined : this.snapshot;
  }

  getStatus(): WidgetStatus {
    const report = this.context?.report;
    const s = this.card;
    if (report?.state === 'failed' || !s) {
      return { state: report?.state === 'failed' ? 'error' : 'disabled', primaryMetric: report?.state === 'failed' ? 'stopped' : 'not running', secondaryMetric: report?.version ?? '', ...(report?.error ? { message: report.error.message } : {}) };
    }
    return {
      state: s.state,
      primaryMetric: s.primary || '—',
      secondaryMetric: [s.secondary, report?.version].filter(Boolean).join(' · '),
      ...(s.updatedAt ? { lastActivity: s.updatedAt } : {}),
      ...(s.message ? { message: s.message } : {}),
    };
  }

  override getControls(): WidgetControl[] {
    return (this.card?.buttons ?? []).map((b, i) => ({
      id: `button-${i}`,
      label: b.label,
      action: async () => {
        this.lastResult = { label: b.label, result: await this.call(b.tool, b.args ?? {}) };
      },
    }));
  }

  protected override renderBody() {
    const s = this.card;
    if (!s) return nothing;
    const r = this.lastResult;
    return html`${s.table
        ? html`<table aria-label="${this.upgradeId} table">
            <thead><tr>${s.table.columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
            <tbody>${s.table.rows.map((row) => html`<tr>${row.map((cell) => html`<td class=${typeof cell === 'number' ? 'num' : ''}>${cell === null ? '' : String(cell)}</td>`)}</tr>`)}</tbody>
          </table>`
        : nothing}
      ${s.log.length ? html`<ol class="log" aria-label="${this.upgradeId} log">${s.log.slice(-SHOWN_LOG).map((l) => html`<li>${l.text}</li>`)}</ol>` : nothing}
      ${r ? html`<p class="result ${r.result.ok ? 'ok' : 'fail'}" role="status">${r.label}: ${r.result.ok ? JSON.stringify(r.result.value)?.slice(0, 300) : errorLine(r.result.error)}</p>` : nothing}`;
  }
}

if (!customElements.get(MADE_UPGRADE_WIDGET)) customElements.define(MADE_UPGRADE_WIDGET, MadeUpgradeWidget);
