import { css, html, nothing, type TemplateResult } from 'lit';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import { metadata } from './index.ts';
import type { WorkspaceSnapshot } from './snapshot.ts';

/** Formats a byte count for people. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A file the person opened: its text, or why it cannot be shown. */
type Opened = { path: string; text?: string; note?: string; loading?: boolean };

/**
 * Workspace widget: files with sizes and modification times (the snapshot's first files, with the
 * totals); click a text file to read it through `read_file`.
 */
export class WorkspaceWidget extends ModuleWidget<WorkspaceSnapshot> {
  static override properties = { ...ModuleWidget.properties, opened: { state: true } };
  // A path is one long word to the browser: let it break anywhere, or a deep or long file name
  // widens the table past the card and pushes its size and time out of sight.
  static override styles = [widgetStyles, css`button.file { text-align: left; overflow-wrap: anywhere; }`];
  declare opened: Opened | undefined;
  private lastChange: number | undefined;
  private readonly events = new BusController(this, () => this.feed, ['workspace:written', 'workspace:deleted'], (r) => {
    this.lastChange = r.at;
    const path = (r.payload as { path: string }).path;
    if (path !== this.opened?.path) return;
    // The file in view changed or went: show what is there now.
    if (r.type === 'workspace:deleted') this.opened = { path, note: `${path} no longer exists.` };
    else void this.open(path);
  });

  protected override onContext(): void {
    this.events.connect();
  }

  getStatus(): WidgetStatus {
    const s = this.snapshot;
    const files = s?.totalFiles ?? 0;
    return {
      state: this.context?.report.state === 'failed' ? 'error' : files ? 'active' : 'idle',
      primaryMetric: counted(files, 'file'),
      secondaryMetric: formatBytes(s?.totalBytes ?? 0),
      lastActivity: this.lastChange ?? s?.lastModified,
    };
  }

  /** Reads `path` as text; a binary file is named with its size. */
  private async open(path: string): Promise<void> {
    this.opened = { path, loading: true };
    const r = await this.call<{ content: string; size: number }>('read_file', { path });
    if (this.opened?.path !== path) return;
    if (r.ok) this.opened = { path, text: r.value.content };
    else {
      // Not a failure of the card: the file is binary, or gone.
      this.failure = undefined;
      const size = this.snapshot?.files.find((f) => f.path === path)?.size;
      this.opened =
        r.error.code === 'NOT_TEXT'
          ? { path, note: `${path} is binary${size === undefined ? '' : ` (${formatBytes(size)})`}; read it with encoding "base64".` }
          : { path, note: r.error.code === 'FILE_NOT_FOUND' ? `${path} no longer exists.` : r.error.message };
    }
  }

  private toggle(path: string): void {
    if (this.opened?.path === path) this.opened = undefined;
    else void this.open(path);
  }

  private renderOpened(o: Opened): TemplateResult {
    if (o.loading) return html`<p class="empty" role="status">Reading ${o.path}…</p>`;
    if (o.text !== undefined) return html`<pre aria-label="contents of ${o.path}">${o.text}</pre>`;
    return html`<p class="empty">${o.note}</p>`;
  }

  protected override renderBody() {
    const s = this.snapshot;
    const files = s?.files ?? [];
    if (!files.length) return html`<p class="empty">The workspace is empty.</p>`;
    const hidden = (s?.totalFiles ?? 0) - files.length;
    return html`<table aria-label="workspace files">
        <thead><tr><th>file</th><th class="num">size</th><th>modified</th></tr></thead>
        <tbody>${files.map(
          (f) => html`<tr>
            <td><button type="button" class="file" aria-pressed=${this.opened?.path === f.path ? 'true' : 'false'} @click=${() => this.toggle(f.path)}>${f.path}</button></td>
            <td class="num">${formatBytes(f.size)}</td>
            <td><time datetime=${new Date(f.mtime).toISOString()}>${formatRelative(f.mtime)}</time></td>
          </tr>`,
        )}</tbody>
      </table>
      ${hidden > 0 ? html`<p class="empty">${counted(hidden, 'more file')} (list them with list_files).</p>` : nothing}
      ${this.opened ? this.renderOpened(this.opened) : nothing}`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, WorkspaceWidget);
