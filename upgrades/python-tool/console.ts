import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import type { SystemView } from '../../src/view/system-view.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { widgetStyles } from '../../src/widgets/module-widget.ts';
import { OutputBuffer } from './output-buffer.ts';
import type { ExecutePythonErrorDetails, ExecutePythonValue } from './python-tool-types.ts';

let consoleRuns = 0;
/** Consoles made in this page, for their session names. */
let consoles = 0;
/**
 * This page's mark in session and run names: a system attached from another process serves
 * several pages, and each page's consoles keep their globals and output apart.
 */
const PAGE = Math.random().toString(36).slice(2, 10);

/** What one run of the console answered: `execute_python`'s tool result. */
export type ConsoleResult = ToolResult<ExecutePythonValue>;

/**
 * `<python-console .view=${view}>`: type Python, run it with Ctrl/Cmd+Enter or the Run button
 * (`execute_python` in the console's own session), watch stdout and stderr stream in (told apart
 * by label and style), see the value or the error with its traceback and hint, interrupt a run
 * (`interrupt_python`). Output is kept bounded on screen; the full log can be downloaded.
 */
export class PythonConsole extends LitElement {
  static override properties = {
    view: { attribute: false },
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

  declare view: SystemView | undefined;
  declare running: boolean;
  declare result: ConsoleResult | undefined;
  private readonly output = new OutputBuffer(2000);
  private runId: string | undefined;
  /**
   * This console's session: its own Python runtime of the pool and its own globals, kept across
   * its runs, apart from agents', MCP clients' and other pages' consoles.
   */
  readonly session = `console-${PAGE}-${++consoles}`;
  private frame = 0;
  private downloadUrl: string | undefined;

  private readonly stream = new BusController(this, () => this.view?.events, ['python:stdout', 'python:stderr'], (r) => {
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
    if (changed.has('view')) this.stream.connect();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    if (this.frame > 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.downloadUrl) URL.revokeObjectURL(this.downloadUrl);
  }

  /** Runs the editor's code (or `code`). */
  async run(code?: string): Promise<ConsoleResult | undefined> {
    const editor = this.renderRoot.querySelector('textarea');
    const source = code ?? editor?.value ?? '';
    if (!this.view || this.running || !source.trim()) return undefined;
    this.output.clear();
    this.result = undefined;
    this.running = true;
    // The call's id is the run's: its output events carry it, so the console streams its own run only.
    this.runId = `${this.session}-run-${++consoleRuns}`;
    // The console is a person at the page: execute_python like any caller, counted in the statistics.
    const result = await this.view.callTool<ExecutePythonValue>('execute_python', { code: source }, { session: this.session, callId: this.runId });
    this.result = result;
    this.running = false;
    return result;
  }

  /** Interrupts this console's run. */
  private interrupt(): void {
    void this.view?.callTool('interrupt_python', { session: this.session });
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
      const v = r.value;
      return html`<p class="value" role="status">✓ finished in ${v.executionTime.toFixed(0)} ms${v.value === null || v.value === undefined ? '' : html` — value: <code>${JSON.stringify(v.value, null, 1)}</code>`}</p>`;
    }
    // A Python error's code is its exception type and its message starts with it; any other failure
    // (refused, timed out) is shown the same way, with its hint.
    const { code, message } = r.error;
    const text = message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
    const traceback = (r.error.details as Partial<ExecutePythonErrorDetails> | undefined)?.traceback;
    return html`<div class="error" role="alert">
      <strong>✖ ${code}</strong>${text ? `: ${text}` : ''}
      ${traceback ? html`<pre aria-label="traceback">${traceback}</pre>` : nothing}
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
        <button type="button" data-control="run" ?disabled=${this.running || !this.view} @click=${() => this.run()}>▶ Run</button>
        <button type="button" data-control="interrupt" ?disabled=${!this.running} @click=${() => this.interrupt()}>■ Interrupt</button>
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
