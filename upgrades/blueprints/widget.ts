import { css, html, nothing, type TemplateResult } from 'lit';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { renderMarkdown } from '../../src/widgets/markdown.ts';
import { metadata } from './index.ts';
import type { BlueprintsSnapshot } from './snapshot.ts';

/** The blueprint the person opened: its body once read. */
type Opened = { id: string; body?: string; problem?: string };

/**
 * Blueprints widget: the list — the project's and agents' (marked "agent", with their version) —
 * from the Blueprints snapshot, kept current as agents' blueprints come and go; click one to read
 * it (`read_blueprint`), rendered as formatted text.
 */
export class BlueprintsWidget extends ModuleWidget<BlueprintsSnapshot> {
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
  static override properties = { ...ModuleWidget.properties, opened: { state: true } };
  declare opened: Opened | undefined;

  getStatus(): WidgetStatus {
    const list = this.snapshot?.blueprints ?? [];
    const agents = list.filter((b) => b.origin === 'agent').length;
    return {
      state: this.context?.report.state === 'failed' ? 'error' : 'idle',
      primaryMetric: counted(this.snapshot?.total ?? 0, 'blueprint'),
      secondaryMetric: `${counted(new Set(list.map((b) => b.target)).size, 'target')}${agents ? `, ${agents} by agents` : ''}`,
    };
  }

  private async open(id: string): Promise<void> {
    if (this.opened?.id === id) {
      this.opened = undefined;
      return;
    }
    this.opened = { id };
    const r = await this.call<{ body: string }>('read_blueprint', { id });
    if (this.opened?.id === id) this.opened = r.ok ? { id, body: r.value.body } : { id, problem: r.error.message };
  }

  private renderOpened(o: Opened): TemplateResult {
    if (o.body !== undefined) return html`<article class="doc" aria-label="blueprint ${o.id}" tabindex="0">${renderMarkdown(o.body)}</article>`;
    return html`<p class="empty" role="status">${o.problem ? `${o.id} could not be read.` : `Reading ${o.id}…`}</p>`;
  }

  protected override renderBody() {
    const s = this.snapshot;
    const list = s?.blueprints ?? [];
    return html`<ul class="list" aria-label="blueprints">
        ${list.map(
          (b) => html`<li><button type="button" aria-pressed=${this.opened?.id === b.id ? 'true' : 'false'} @click=${() => this.open(b.id)}>
            <span class="id">${b.id}</span>${b.title}</button> <span class="secondary">→ ${b.target}</span>${b.origin === 'agent' ? html`<span class="origin" title="written by an agent (create_blueprint)">agent v${b.version}</span>` : nothing}</li>`,
        )}
      </ul>
      ${s && s.total > list.length ? html`<p class="empty">${counted(s.total - list.length, 'more blueprint')} (list them with list_blueprints).</p>` : nothing}
      ${this.opened ? this.renderOpened(this.opened) : nothing}`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, BlueprintsWidget);
