import { css, html, nothing, type TemplateResult } from 'lit';
import type { EventRecord } from '../../src/kernel/event-bus.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import type { AgentApi, RecordedExample, RunError, RunSummary } from '../../src/contracts/agent-contract.ts';
import { REPLAY_EVENTS, ReplaySession } from './replay/replay-session.ts';
import { applyEvent, VIEW_EVENTS, viewFromTranscript, type RunView } from './run-view.ts';
import './settings-form.ts';
import { formatUsage } from './transcript-view.ts';

/**
 * `<agent-widget>`: the agent panel. A goal box with Send and Stop, the model settings, the
 * streamed transcript of the run in view (a follow-up continues it), its tokens, and the past
 * runs to reopen. It renders what the Agent upgrade's events and API say; the loop lives there.
 */
export class AgentWidget extends ModuleWidget<AgentApi> {
  static override properties = { ...ModuleWidget.properties, view: { state: true }, runs: { state: true }, version: { state: true }, refused: { state: true }, examples: { state: true }, replaying: { state: true } };
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
      details.examples > summary { cursor: pointer; font-size: 13px; margin: 4px 0; }
      .examples ul { list-style: none; padding: 0; margin: 4px 0; font-size: 12px; display: grid; gap: 6px; }
      .examples li { border: 1px solid #dde2ea; border-radius: 6px; padding: 6px 8px; }
      .examples .what { color: #4a5366; margin: 2px 0; }
      .examples .label { color: #6b7385; font-style: italic; margin: 2px 0; }
      .replay { font-size: 13px; margin: 6px 0; padding: 6px 8px; border-radius: 4px; background: #f4f6fa; }
      .replay.waiting { background: #fffaf0; border-left: 3px solid #8a5a00; }
    `,
  ];

  declare view: RunView | undefined;
  declare runs: RunSummary[];
  declare version: number;
  /** A run the agent refused before it started (e.g. a follow-up of a run that is gone). */
  declare refused: RunError | undefined;
  /** When the last agent event this widget heard happened. */
  private lastActivity: number | undefined;
  /** The recorded examples that can be replayed here. */
  declare examples: RecordedExample[];
  /** The example being replayed, if any. */
  declare replaying: ReplaySession | undefined;

  private readonly events = new BusController(this, () => this.bus, [...VIEW_EVENTS, 'agent:settings-changed', ...REPLAY_EVENTS], (r) => this.onEvent(r as EventRecord));

  constructor() {
    super();
    this.runs = [];
    this.version = 0;
    this.examples = [];
  }

  private get agent(): AgentApi | undefined {
    return this.context?.api;
  }

  protected override onContext(): void {
    this.events.connect();
    this.refreshRuns();
    void this.agent
      ?.examples()
      .then((list) => (this.examples = list))
      .catch(() => (this.examples = []));
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
    if (r.type.startsWith('change:')) return this.replaying?.onEvent(r);
    if (r.type.startsWith('agent:')) this.lastActivity = Math.max(this.lastActivity ?? 0, r.at);
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
      // The newest of what this page saw happen and what the transcripts say (a run of an earlier visit).
      lastActivity: Math.max(this.lastActivity ?? 0, this.runs[0]?.updatedAt ?? 0) || undefined,
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

  /** Replays a recorded example: its first turn now, the others as the person continues. */
  private replay(example: RecordedExample): void {
    if (!this.agent || this.view?.running) return;
    this.view = undefined;
    this.refused = undefined;
    this.replaying = new ReplaySession(this.agent, example, () => this.requestUpdate());
    void this.replaying.next();
  }

  private newRun(): void {
    this.view = undefined;
    this.replaying = undefined;
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

  private renderExamples(open: boolean): TemplateResult | typeof nothing {
    if (!this.examples.length) return nothing;
    const busy = !!this.view?.running;
    return html`<details class="examples" ?open=${open}>
      <summary>Replay an example (no model, no key)</summary>
      <p class="what">Recorded runs, played back against this system: the model's answers come from the recording, every tool runs for real, and the replay stops at the first tool result that differs.</p>
      <ul aria-label="recorded examples">
        ${this.examples.map(
          (e) => html`<li data-example=${e.name}>
            <strong>${e.title}</strong> <span class="what">(${e.goals.length} turn${e.goals.length === 1 ? '' : 's'})</span>
            ${e.description ? html`<p class="what">${e.description}</p>` : nothing}
            ${e.label ? html`<p class="label">${e.label}</p>` : nothing}
            <button type="button" data-control="replay-example" ?disabled=${busy || !this.agent} @click=${() => this.replay(e)}>Replay</button>
          </li>`,
        )}
      </ul>
    </details>`;
  }

  private renderReplay(): TemplateResult | typeof nothing {
    const r = this.replaying;
    if (!r) return nothing;
    const title = r.example.title;
    const pending = [...r.pending];
    if (r.running) return html`<p class="replay" role="status">Replaying “${title}”: turn ${r.played + 1} of ${r.turns}…</p>`;
    if (r.error) return html`<p class="replay" role="status">The replay of “${title}” stopped at turn ${r.played + 1} of ${r.turns} (see above).</p>`;
    if (r.finished) return html`<p class="replay" role="status" data-replay="done">✓ Replayed “${title}”: ${r.turns} turn${r.turns === 1 ? '' : 's'}, every tool result matched the recording.</p>`;
    return html`<div class="replay ${pending.length ? 'waiting' : ''}" role="status" data-replay=${pending.length ? 'waiting' : 'ready'}>
      ${pending.length
        ? html`<p>Turn ${r.played} of ${r.turns} replayed. The replay waits for you, as the recorded run waited for its person: approve ${pending.map(([id, what]) => `${what} (${id})`).join(', ')} on the Changes card. A replay never approves by itself.</p>`
        : html`<p>Turn ${r.played} of ${r.turns} replayed.</p>`}
      <button type="button" data-control="continue-replay" ?disabled=${!r.canContinue} @click=${() => void r.next()}>Continue the replay (turn ${r.played + 1} of ${r.turns})</button>
    </div>`;
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
      ${this.renderExamples(settings?.source === 'none')}
      <agent-transcript .view=${this.view} .version=${this.version}></agent-transcript>
      ${this.renderReplay()}
      ${this.renderRuns()}
    `;
  }
}

if (!customElements.get('agent-widget')) customElements.define('agent-widget', AgentWidget);
