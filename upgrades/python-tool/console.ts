import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import type { EventBus } from '../../src/kernel/event-bus.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { widgetStyles } from '../../src/widgets/module-widget.ts';
import type { ExecuteResult } from '../pyodide-runtime/contract.ts';
import { OutputBuffer } from './output-buffer.ts';
import type { PythonToolApi } from './python-tool-types.ts';

let consoleRuns = 0;
/** Consoles made in this page, for their session names. */
let consoles = 0;

/**
 * `<python-console>`: type Python, run it with Ctrl/Cmd+Enter or the Run button, watch stdout and
 * stderr stream in (told apart by label and style), see the value or the error with its traceback
 * and hint, interrupt a run. Output is kept bounded on screen; the full log can be downloaded.
 */
export class PythonConsole extends LitElement {
  static override properties = {
    python: { attribute: false },
    bus: { attribute: false },
    running: { state: true },
    result: { state: true },
  };
  static override styles = [
    widgetStyles,
    css`
      :host { display: block; }
      label { font-size: 12px; color: #4a5366; display: block; margin-bottom: 2px; }
      textarea { width: 100%; box-sizing: border-box; min-height: 90px; font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: 6px; border: 1px solid #8a93a6; border-radius: 4px; resize: vertical; }
      textarea:focus-visible { outline: 2px solid #1f4fa8; outline-offset: 1px; }
      .row { display: flex; gap: 6px; align-items: center; margin: 6px 0; flex-wrap: wrap; }
      .kbd { font-size: 11px; color: #4a5366; }
      .out { background: #10151f; color: #e6e9ef; border-radius: 4px; padding: 6px 8px; max-height: 320px; overflow: auto; font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; word-break: break-word; margin: 0; }
      .out .stderr { color: #ffb3b3; }
      .out .stderr::before { content: '[stderr] '; color: #ff8080; font-weight: 600; }
      .hidden-note { font-size: 12px; color: #4a5366; }
      .value { margin: 6px 0 0; font-size: 12px; }
      .value code { white-space: pre-wrap; word-break: break-word; }
      .error { margin-top: 6px; border-left: 3px solid #a61b1b; padding: 4px 8px; background: #fdf1f1; overflow-wrap: anywhere; }
      .error strong { color: #7d1111; }
      .error pre { background: none; padding: 0; margin: 4px 0; max-height: 200px; }
      .hint { font-size: 12px; margin-top: 4px; }
    `,
  ];

  declare python: PythonToolApi | undefined;
  declare bus: EventBus | undefined;
  declare running: boolean;
  declare result: ExecuteResult | undefined;
  private readonly output = new OutputBuffer(2000);
  private runId: string | undefined;
  /**
   * This console's session: its own Python runtime of the pool and its own globals, kept across
   * its runs, apart from agents' and MCP clients'.
   */
  readonly session = `console-${++consoles}`;
  private frame = 0;
  private downloadUrl: string | undefined;

  private readonly stream = new BusController(this, () => this.bus, ['python:stdout', 'python:stderr'], (r) => {
    const p = r.payload as { runId: string; chunk: string };
    if (p.runId !== this.runId) return;
    this.output.append(r.type === 'python:stdout' ? 'stdout' : 'stderr', p.chunk);
    this.scheduleRender();
  });

  constructor() {
    super();
    this.running = false;
  }

  // Bus events request a render each; output is rendered at most once per animation frame instead.
  protected override shouldUpdate(changed: PropertyValues): boolean {
    return changed.size > 0 || !this.running || this.frame === -1;
  }

  private scheduleRender(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = -1;
      this.requestUpdate();
      void this.updateComplete.then(() => {
        this.frame = 0;
        const out = this.renderRoot.querySelector('.out');
        if (out) out.scrollTop = out.scrollHeight;
      });
    });
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('bus')) this.stream.connect();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    if (this.frame > 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
  }

  /** Runs the editor's code (or `code`). */
  async run(code?: string): Promise<ExecuteResult | undefined> {
    const editor = this.renderRoot.querySelector('textarea');
    const source = code ?? editor?.value ?? '';
    if (!this.python || this.running || !source.trim()) return undefined;
    this.output.clear();
    this.result = undefined;
    this.running = true;
    this.runId = `console-${++consoleRuns}`;
    // The console goes through PythonTool, so its runs count in the statistics like any other.
    const result = await this.python.executePython({ code: source, runId: this.runId, session: this.session });
    this.result = result;
    this.running = false;
    return result;
  }

  private onKeydown(e: KeyboardEvent): void {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void this.run();
    }
  }

  private download(): void {
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
    this.downloadUrl = URL.createObjectURL(new Blob([this.output.fullLog()], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = this.downloadUrl;
    a.download = `python-output-${this.runId ?? 'log'}.txt`;
    a.click();
  }

  private renderResult() {
    const r = this.result;
    if (!r) return nothing;
    if (r.ok) {
      return html`<p class="value" role="status">✓ finished in ${r.executionTime.toFixed(0)} ms${r.value === null || r.value === undefined ? '' : html` — value: <code>${JSON.stringify(r.value, null, 1)}</code>`}</p>`;
    }
    return html`<div class="error" role="alert">
      <strong>✖ ${r.error.type}</strong>${r.error.message ? `: ${r.error.message}` : ''}
      ${r.error.traceback ? html`<pre aria-label="traceback">${r.error.traceback}</pre>` : nothing}
      ${r.hint ? html`<div class="hint">Hint: ${r.hint}</div>` : nothing}
    </div>`;
  }

  override render() {
    const segments = this.output.segments();
    const hidden = this.output.hiddenLines;
    return html`
      <label for="code">Python code</label>
      <textarea id="code" spellcheck="false" placeholder="print('hello')  — Ctrl+Enter to run" @keydown=${this.onKeydown}></textarea>
      <div class="row">
        <button type="button" data-control="run" ?disabled=${this.running || !this.python} @click=${() => this.run()}>▶ Run</button>
        <button type="button" data-control="interrupt" ?disabled=${!this.running} @click=${() => this.python?.interrupt(this.session)}>■ Interrupt</button>
        <span class="kbd">Ctrl/Cmd+Enter runs</span>
        ${this.running ? html`<span role="status">Running…</span>` : nothing}
      </div>
      ${segments.length
        ? html`${hidden ? html`<div class="hidden-note">${hidden.toLocaleString()} earlier lines hidden · <button type="button" data-control="download" @click=${() => this.download()}>Download full log</button></div>` : nothing}
            <pre class="out" aria-label="output" aria-live="off">${segments.map((s) => html`<span class=${s.stream}>${s.text}</span>`)}</pre>`
        : nothing}
      ${this.renderResult()}
    `;
  }
}

if (!customElements.get('python-console')) customElements.define('python-console', PythonConsole);
