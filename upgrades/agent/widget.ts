import { css, html, nothing, type TemplateResult } from 'lit';
import type { EventRecord } from '../../src/kernel/event-bus.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import type { AgentApi, RunError, RunSummary } from '../../src/contracts/agent-contract.ts';
import { applyEvent, emptyView, VIEW_EVENTS, viewFromTranscript, type RunView } from './run-view.ts';
import './settings-form.ts';
import { formatUsage } from './transcript-view.ts';

/**
 * `<agent-widget>`: the agent panel. A goal box with Send and Stop, the model settings, the
 * streamed transcript of the run in view (a follow-up continues it), its tokens, and the past
 * runs to reopen. It renders what the Agent upgrade's events and API say; the loop lives there.
 */
export class AgentWidget extends ModuleWidget<AgentApi> {
  static override properties = { ...ModuleWidget.properties, view: { state: true }, runs: { state: true }, version: { state: true }, refused: { state: true } };
  static override styles = [
    widgetStyles,
    css`
      label.goal-label { font-size: 12px; color: #4a5366; display: block; margin: 8px 0 2px; }
      textarea { width: 100%; box-sizing: border-box; min-height: 64px; font: inherit; padding: 6px; border: 1px solid #8a93a6; border-radius: 4px; resize: vertical; }
      textarea:focus-visible { outline: 2px solid #1f4fa8; outline-offset: 1px; }
      .row { display: flex; gap: 6px; align-items: center; margin: 6px 0; flex-wrap: wrap; }
      .kbd { font-size: 11px; color: #4a5366; }
      details.settings > summary { cursor: pointer; font-size: 13px; margin: 4px 0; }
      .runs { list-style: none; padding: 0; margin: 4px 0; font-size: 12px; }
      .runs li { display: flex; flex-wrap: wrap; gap: 2px 6px; align-items: baseline; padding: 2px 0; border-bottom: 1px solid #eceff4; }
      /* On a narrow card the details go to a line of their own rather than squeeze the goal to a letter. */
      .runs .goal { flex: 1 1 14em; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
      .runs .meta { color: #4a5366; white-space: nowrap; }
      .runs button { font-size: 12px; padding: 1px 6px; }
      h4 { font-size: 12px; margin: 10px 0 2px; color: #4a5366; text-transform: uppercase; letter-spacing: 0.04em; }
    `,
  ];

  declare view: RunView | undefined;
  declare runs: RunSummary[];
  declare version: number;
  /** A run the agent refused before it started (e.g. a follow-up of a run that is gone). */
  declare refused: RunError | undefined;

  private readonly events = new BusController(this, () => this.bus, [...VIEW_EVENTS, 'agent:settings-changed'], (r) => this.onEvent(r as EventRecord));

  constructor() {
    super();
    this.runs = [];
    this.version = 0;
  }

  private get agent(): AgentApi | undefined {
    return this.context?.api;
  }

  protected override onContext(): void {
    this.events.connect();
    this.refreshRuns();
  }

  private refreshRuns(): void {
    try {
      this.runs = this.agent?.listRuns(10) ?? [];
    } catch {
      this.runs = [];
    }
  }

  private onEvent(r: EventRecord): void {
    if (r.type === 'agent:settings-changed') return;
    if (r.type === 'agent:run-started') {
      const p = r.payload as { runId: string; continued: boolean; goal: string };
      if (this.view?.runId !== p.runId) {
        // A run started elsewhere (or a reopened one continued): show it, with its history.
        const prior = p.continued ? (this.agent?.readRun(p.runId) ?? []) : [];
        const started = prior.findLastIndex((e) => e.type === 'started');
        const done = prior.slice(started).some((e) => e.type === 'finished');
        this.view = viewFromTranscript(p.runId, started >= 0 && !done ? prior.slice(0, started) : prior);
      }
    }
    if (this.view && applyEvent(this.view, r)) this.version++;
    if (r.type === 'agent:run-started' || r.type === 'agent:run-finished') this.refreshRuns();
  }

  getStatus(): WidgetStatus {
    const settings = this.agent?.getSettings();
    const model = settings?.model ? `${settings.model.provider} · ${settings.model.model}` : 'no model set';
    const last = this.view?.turns.at(-1)?.finished;
    const running = this.agent?.activeRuns().length ?? 0;
    return {
      state: !this.agent ? 'disabled' : running ? 'active' : last?.reason === 'error' ? 'error' : last?.reason === 'max-steps' ? 'warning' : 'idle',
      primaryMetric: running ? 'running' : `${this.runs.length === 10 ? '10+' : this.runs.length} run${this.runs.length === 1 ? '' : 's'}`,
      secondaryMetric: model,
      lastActivity: this.runs[0]?.updatedAt,
    };
  }

  /** Sends the goal box: a follow-up of the run in view, or a new run. */
  async send(goal?: string): Promise<void> {
    const box = this.renderRoot.querySelector<HTMLTextAreaElement>('textarea');
    const text = (goal ?? box?.value ?? '').trim();
    if (!this.agent || !text || this.view?.running) return;
    if (box) box.value = '';
    const runId = this.view && this.view.turns.length ? this.view.runId : undefined;
    if (!runId) this.view = undefined;
    this.refused = undefined;
    const result = await this.agent.run({ goal: text, ...(runId ? { runId } : {}) });
    // A run that never started has no events to show: say why here.
    if (result.error && !this.started(result.runId)) this.refused = result.error;
  }

  private started(runId: string): boolean {
    try {
      return !!this.agent?.readRun(runId)?.length;
    } catch {
      return false;
    }
  }

  private newRun(): void {
    this.view = undefined;
    this.renderRoot.querySelector<HTMLTextAreaElement>('textarea')?.focus();
  }

  private reopen(runId: string): void {
    const entries = this.agent?.readRun(runId);
    if (entries) this.view = viewFromTranscript(runId, entries);
    this.version++;
  }

  private onKeydown(e: KeyboardEvent): void {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void this.send();
    }
  }

  private renderRuns(): TemplateResult | typeof nothing {
    if (!this.runs.length) return nothing;
    return html`<h4>Past runs</h4>
      <ul class="runs" aria-label="past runs">
        ${this.runs.map(
          (r) => html`<li data-run=${r.runId}>
            <span class="goal" title=${r.goal}>${r.goal}</span>
            <span class="meta">${r.reason} · ${r.steps} step${r.steps === 1 ? '' : 's'} · ${formatUsage(r.usage)} · ${formatRelative(r.updatedAt)}</span>
            <button type="button" data-control="open-run" aria-label="Open run: ${r.goal}" ?disabled=${this.view?.runId === r.runId} @click=${() => this.reopen(r.runId)}>Open</button>
          </li>`,
        )}
      </ul>`;
  }

  protected override renderBody(): TemplateResult {
    const settings = this.agent?.getSettings();
    const running = !!this.view?.running;
    const following = !!this.view?.turns.length;
    return html`
      <details class="settings" ?open=${settings?.source === 'none'}>
        <summary>Model settings${settings?.model ? `: ${settings.model.provider} · ${settings.model.model}${settings.model.baseURL ? ` at ${settings.model.baseURL}` : ''}` : ' (none yet)'}</summary>
        <agent-settings .agent=${this.agent}></agent-settings>
      </details>
      <label class="goal-label" for="goal">${following ? 'Follow-up (continues this run)' : 'Goal'}</label>
      <textarea id="goal" placeholder=${following ? 'Ask a follow-up about this run — Ctrl+Enter sends' : 'e.g. Add up the numbers in data/numbers.txt and write the sum to results/sum.txt — Ctrl+Enter sends'} @keydown=${this.onKeydown}></textarea>
      <div class="row">
        <button type="button" data-control="send" ?disabled=${running || !this.agent} @click=${() => this.send()}>${following ? 'Send follow-up' : 'Send'}</button>
        <button type="button" data-control="stop" ?disabled=${!running} @click=${() => this.agent?.abort(this.view?.runId)}>■ Stop</button>
        ${following ? html`<button type="button" data-control="new-run" ?disabled=${running} @click=${() => this.newRun()}>New run</button>` : nothing}
        <span class="kbd">Ctrl/Cmd+Enter sends</span>
      </div>
      ${this.refused ? html`<p class="message" role="alert">${this.refused.message}${this.refused.hint ? ` ${this.refused.hint}` : ''}</p>` : nothing}
      <agent-transcript .view=${this.view} .version=${this.version}></agent-transcript>
      ${this.renderRuns()}
    `;
  }
}

if (!customElements.get('agent-widget')) customElements.define('agent-widget', AgentWidget);
