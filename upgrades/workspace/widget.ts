import { css, html, nothing } from 'lit';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import { metadata } from './index.ts';
import type { WorkspaceApi } from './workspace.ts';

/** Formats a byte count for people. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Workspace widget: files with sizes and modification times; click a text file to view it. */
export class WorkspaceWidget extends ModuleWidget<WorkspaceApi> {
  static override properties = { ...ModuleWidget.properties, selected: { state: true } };
  // A path is one long word to the browser: let it break anywhere, or a deep or long file name
  // widens the table past the card and pushes its size and time out of sight.
  static override styles = [widgetStyles, css`button.file { text-align: left; overflow-wrap: anywhere; }`];
  declare selected: string | undefined;
  private lastChange: number | undefined;
  private readonly events = new BusController(this, () => this.bus, ['workspace:written', 'workspace:deleted'], (r) => {
    this.lastChange = r.at;
    if (r.type === 'workspace:deleted' && (r.payload as { path: string }).path === this.selected) this.selected = undefined;
  });

  protected override onContext(): void {
    this.events.connect();
  }

  getStatus(): WidgetStatus {
    const api = this.context?.api;
    const files = api?.list() ?? [];
    return {
      state: this.context?.report.state === 'failed' ? 'error' : files.length ? 'active' : 'idle',
      primaryMetric: counted(files.length, 'file'),
      secondaryMetric: formatBytes(api?.totalBytes() ?? 0),
      lastActivity: this.lastChange ?? (files.length ? Math.max(...files.map((f) => f.mtime)) : undefined),
    };
  }

  private view(path: string): ReturnType<typeof html> {
    const api = this.context!.api!;
    if (!api.stat(path)) return html`<p class="empty">${path} no longer exists.</p>`;
    try {
      return html`<pre aria-label="contents of ${path}">${api.readText(path)}</pre>`;
    } catch {
      return html`<p class="empty">${path} is binary (${formatBytes(api.stat(path)!.size)}); read it with encoding "base64".</p>`;
    }
  }

  protected override renderBody() {
    const files = this.context?.api?.list() ?? [];
    if (!files.length) return html`<p class="empty">The workspace is empty.</p>`;
    return html`<table aria-label="workspace files">
        <thead><tr><th>file</th><th class="num">size</th><th>modified</th></tr></thead>
        <tbody>${files.map(
          (f) => html`<tr>
            <td><button type="button" class="file" aria-pressed=${this.selected === f.path ? 'true' : 'false'} @click=${() => (this.selected = this.selected === f.path ? undefined : f.path)}>${f.path}</button></td>
            <td class="num">${formatBytes(f.size)}</td>
            <td><time datetime=${new Date(f.mtime).toISOString()}>${formatRelative(f.mtime)}</time></td>
          </tr>`,
        )}</tbody>
      </table>
      ${this.selected ? this.view(this.selected) : nothing}`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, WorkspaceWidget);
