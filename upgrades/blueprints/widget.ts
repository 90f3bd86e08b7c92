import { css, html, nothing } from 'lit';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { renderMarkdown } from '../../src/widgets/markdown.ts';
import { metadata } from './index.ts';
import type { BlueprintRegistryApi } from './registry.ts';

/**
 * Blueprints widget: the list — the project's and agents' (marked "agent", with their version) —
 * kept current from change events; click one to read it, rendered as formatted text.
 */
export class BlueprintsWidget extends ModuleWidget<BlueprintRegistryApi> {
  // An agent's blueprint comes into force or goes out: the list changes.
  private readonly changes = new BusController(this, () => this.bus, ['change:activated', 'change:rolled-back'], () => undefined);

  protected override onContext(): void {
    this.changes.connect();
  }

  static override styles = [widgetStyles, css`
    .doc { max-height: 420px; overflow: auto; border-top: 1px solid #eceff4; margin-top: 8px; padding-top: 4px; }
    .doc h1 { font-size: 17px; } .doc h2 { font-size: 15px; } .doc h3, .doc h4 { font-size: 14px; }
    .doc code { background: #f1f3f7; padding: 0 3px; border-radius: 3px; }
    .doc pre code { background: none; padding: 0; }
    ul.list { list-style: none; padding: 0; margin: 6px 0; }
    ul.list li { margin: 2px 0; }
    .id { font-family: ui-monospace, monospace; color: #4a5366; margin-right: 6px; }
    .origin { font-size: 11px; border: 1px solid #8a93a6; border-radius: 8px; padding: 0 5px; margin-left: 6px; color: #4a5366; }
  `];
  static override properties = { ...ModuleWidget.properties, selected: { state: true } };
  declare selected: string | undefined;

  getStatus(): WidgetStatus {
    const list = this.context?.api?.list() ?? [];
    return {
      state: this.context?.report.state === 'failed' ? 'error' : 'idle',
      primaryMetric: counted(list.length, 'blueprint'),
      secondaryMetric: `${counted(new Set(list.map((b) => b.target)).size, 'target')}${list.some((b) => b.origin === 'agent') ? `, ${list.filter((b) => b.origin === 'agent').length} by agents` : ''}`,
    };
  }

  protected override renderBody() {
    const api = this.context?.api;
    const list = api?.list() ?? [];
    const bp = this.selected ? api?.get(this.selected) : undefined;
    return html`<ul class="list" aria-label="blueprints">
        ${list.map(
          (b) => html`<li><button type="button" aria-pressed=${this.selected === b.id ? 'true' : 'false'} @click=${() => (this.selected = this.selected === b.id ? undefined : b.id)}>
            <span class="id">${b.id}</span>${b.title}</button> <span class="secondary">→ ${b.target}</span>${b.origin === 'agent' ? html`<span class="origin" title="written by an agent (create_blueprint)">agent v${b.version}</span>` : nothing}</li>`,
        )}
      </ul>
      ${bp ? html`<article class="doc" aria-label="blueprint ${bp.id}" tabindex="0">${renderMarkdown(bp.body)}</article>` : nothing}`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, BlueprintsWidget);
