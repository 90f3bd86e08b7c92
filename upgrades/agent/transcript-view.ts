import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { changeOutcomeOf } from '../../src/contracts/change-answer.ts';
import { widgetStyles } from '../../src/widgets/module-widget.ts';
import type { AgentStopReason, AgentUsage } from '../../src/contracts/agent-contract.ts';
import type { RunView, StepView, ToolCallView, TurnView } from './run-view.ts';

const json = (v: unknown) => {
  try {
    return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
};

/** `1,900 in / 75 out tokens`. */
export const formatUsage = (u: AgentUsage) => `${u.inputTokens.toLocaleString('en')} in / ${u.outputTokens.toLocaleString('en')} out tokens`;

const REASONS: Record<AgentStopReason, string> = {
  answered: '✓ answered',
  'max-steps': '▲ stopped at the step limit',
  aborted: '■ stopped',
  error: '✖ failed',
};

/**
 * `<agent-transcript>`: a run as text — each goal, the assistant's streamed text, every tool call
 * folded (arguments, Python output, result, duration), how each turn ended and its tokens. Only
 * text bindings: nothing a model says is ever parsed as HTML.
 */
export class AgentTranscript extends LitElement {
  static override properties = { view: { attribute: false }, version: { attribute: false } };
  static override styles = [
    widgetStyles,
    css`
      :host { display: block; }
      .turn { border-top: 1px solid #eceff4; padding-top: 6px; margin-top: 6px; }
      .goal { font-weight: 600; white-space: pre-wrap; word-break: break-word; }
      .goal::before { content: 'You: '; color: #4a5366; font-weight: 400; }
      .text { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
      details.call { border: 1px solid #cdd3de; border-radius: 4px; margin: 4px 0; padding: 2px 6px; background: #fafbfd; }
      details.call summary { cursor: pointer; font-size: 13px; }
      .label { font-size: 11px; color: #4a5366; margin: 4px 0 0; text-transform: uppercase; letter-spacing: 0.04em; }
      .output { background: #10151f; color: #e6e9ef; font: 12px/1.35 ui-monospace, SFMono-Regular, Menlo, monospace; margin: 2px 0; max-height: 240px; }
      .output .stderr { color: #ffb3b3; }
      .finished { font-size: 12px; color: #4a5366; margin: 4px 0; }
      .error { border-left: 3px solid #a61b1b; padding: 4px 8px; background: #fdf1f1; color: #7d1111; white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
      .notice { font-size: 12px; color: #8a5a00; margin: 2px 0; }
      .running { font-size: 12px; color: #1f4fa8; }
      .pending { color: #8a5a00; }
    `,
  ];

  declare view: RunView | undefined;
  /** The view is updated in place; a new version asks for a render. */
  declare version: number;

  private renderCall(c: ToolCallView): TemplateResult {
    const state = callState(c);
    const duration = c.durationMs === undefined ? '' : ` · ${c.durationMs.toFixed(0)} ms`;
    // A running call is open, so its output is seen as it arrives; a finished one folds.
    return html`<details class="call" data-call=${c.toolCallId} data-tool=${c.name} ?open=${c.running}>
      <summary>⚙ ${c.name} · <span class=${state.tone}>${state.text}</span>${duration}</summary>
      <p class="label">Arguments</p>
      ${renderArgs(c.args)}
      ${c.output.length || c.pythonRunId
        ? html`<p class="label">Python output${c.outputDropped ? ` (first ${c.outputDropped.toLocaleString('en')} characters not shown)` : ''}</p>
            <pre class="output" aria-label="Python output of ${c.name}">${c.output.length ? c.output.map((o) => html`<span class=${o.stream}>${o.text}</span>`) : c.running ? '(none yet)' : '(none)'}</pre>`
        : nothing}
      ${c.running ? nothing : html`<p class="label">Result</p><pre class="result">${json(c.result)}</pre>`}
    </details>`;
  }

  private renderStep(s: StepView): TemplateResult {
    return html`<div class="step" data-step=${s.step}>
      ${s.text ? html`<div class="text">${s.text}</div>` : nothing}
      ${s.calls.map((c) => this.renderCall(c))}
    </div>`;
  }

  private renderTurn(t: TurnView, last: boolean): TemplateResult {
    const f = t.finished;
    return html`<div class="turn">
      <div class="goal">${t.goal}</div>
      ${t.steps.map((s) => this.renderStep(s))}
      ${t.notices.map((n) => html`<p class="notice">▲ ${n}</p>`)}
      ${f
        ? html`${f.error && f.reason !== 'answered' ? html`<div class="error" role="alert">${f.error.message}${f.error.hint ? `\nHint: ${f.error.hint}` : ''}</div>` : nothing}
            <p class="finished">${REASONS[f.reason]} · ${f.steps} step${f.steps === 1 ? '' : 's'} · ${formatUsage(f.usage)}</p>`
        : last && this.view?.running
          ? html`<p class="running" role="status">◌ working…</p>`
          : html`<p class="finished">– interrupted (the page was closed while it ran); send a follow-up to go on</p>`}
    </div>`;
  }

  override render() {
    const v = this.view;
    if (!v || !v.turns.length) return nothing;
    return html`<section aria-label="transcript of ${v.runId}">
      ${v.turns.map((t, i) => this.renderTurn(t, i === v.turns.length - 1))}
      ${v.turns.length > 1 ? html`<p class="finished">Run total: ${formatUsage(v.usage)}</p>` : nothing}
    </section>`;
  }
}

/** Arguments as JSON; code (execute_python's `code`) as the code it is, not an escaped string. */
function renderArgs(args: unknown): TemplateResult {
  const a = args as { code?: unknown } | null;
  if (a && typeof a === 'object' && !Array.isArray(a) && typeof a.code === 'string') {
    const { code, ...rest } = a;
    return html`${Object.keys(rest).length ? html`<pre class="args">${json(rest)}</pre>` : nothing}<pre class="args code" aria-label="code">${code as string}</pre>`;
  }
  return html`<pre class="args">${json(args)}</pre>`;
}

/**
 * How a call's summary reads: running, failed with its error code, or done — and for a call whose
 * answer is a change, what became of it (a change its gate rejected is shown as rejected, not ok).
 */
export function callState(c: Pick<ToolCallView, 'running' | 'ok' | 'result'>): { text: string; tone: '' | 'ok' | 'fail' | 'pending' } {
  if (c.running) return { text: '◌ running', tone: '' };
  if (!c.ok) return { text: `✖ ${errorCode(c.result)}`, tone: 'fail' };
  const change = changeOutcomeOf(c.result);
  if (change?.status === 'rejected') return { text: `✖ rejected (change ${change.change})`, tone: 'fail' };
  if (change?.status === 'pending') return { text: `◌ pending approval (change ${change.change})`, tone: 'pending' };
  return { text: change ? `✓ ${change.status} (change ${change.change})` : '✓ ok', tone: 'ok' };
}

function errorCode(result: unknown): string {
  const e = (result as { error?: { code?: string; type?: string } } | undefined)?.error;
  return e?.code ?? e?.type ?? 'error';
}

if (!customElements.get('agent-transcript')) customElements.define('agent-transcript', AgentTranscript);
