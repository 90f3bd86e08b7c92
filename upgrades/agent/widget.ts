import { css, html, nothing, type TemplateResult } from 'lit';
import type { EventRecord } from '../../src/kernel/event-bus.ts';
import type { ProcessInfo } from '../../src/view/system-view.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import type { AgentStopReason, RecordedExample, RunError, RunSummary, TranscriptEntry } from '../../src/contracts/agent-contract.ts';
import { PastRuns, processLabel } from './past-runs.ts';
import { REPLAY_EVENTS, ReplaySession, type ReplayTurn } from './replay/replay-session.ts';
import { renderExamples, renderReplay } from './replay/replay-view.ts';
import { applyEvent, emptyView, VIEW_EVENTS, viewFromTranscript, type RunView } from './run-view.ts';
import type { AgentSnapshot } from './snapshot.ts';
import './settings-form.ts';
import './transcript-view.ts';

/** A run as the panel follows it: what it shows, and the process it runs in (another one's, when attached). */
type Shown = RunView & { process?: string };

/**
 * `<agent-widget>`: the agent panel. A goal box with Send and Stop, the model settings, the
 * streamed transcript of the run in view (a follow-up continues it; a run of another process on
 * the data folder shows live too, with its process), its tokens, and the past runs to reopen. It
 * renders the Agent's snapshot and its `agent:*` / `python:*` events, and acts through the
 * person's tools (`start_run`, `stop_run`, `save_agent_settings`, `read_run`, `list_runs`); the
 * loop lives in the Agent upgrade, wherever it runs.
 */
export class AgentWidget extends ModuleWidget<AgentSnapshot> {
  static override properties = { ...ModuleWidget.properties, shown: { state: true }, version: { state: true }, refused: { state: true }, replaying: { state: true } };
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
      .filters { display: flex; gap: 10px; flex-wrap: wrap; font-size: 12px; color: #4a5366; }
      .filters select { font: inherit; font-size: 12px; }
      .where { font-size: 12px; color: #4a5366; margin: 4px 0; }
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

  /** The run in view. */
  declare shown: Shown | undefined;
  declare version: number;
  /** A run the agent refused before it started (e.g. a follow-up of a run that is gone). */
  declare refused: RunError | undefined;
  /** The run whose transcript is being read: its events wait in the history until it is. */
  private loadingRun: string | undefined;
  private readonly past = new PastRuns(this, () => this.view);
  /** When the last agent event this widget heard happened. */
  private lastActivity: number | undefined;
  /** The example being replayed, if any. */
  declare replaying: ReplaySession | undefined;
  /** Runs' ends as heard, and the replay turns that wait for one (a quick run may end before start_run answers). */
  private readonly ended = new Map<string, { reason: AgentStopReason; error?: RunError }>();
  private readonly waitingEnd = new Map<string, (r: { reason: AgentStopReason; error?: RunError }) => void>();

  private readonly events = new BusController(this, () => this.feed, [...VIEW_EVENTS, 'process:started', 'process:ended', ...REPLAY_EVENTS], (r) => this.onEvent(r as EventRecord));

  constructor() {
    super();
    this.version = 0;
  }

  protected override onContext(): void {
    this.events.connect();
  }

  private onEvent(r: EventRecord): void {
    if (r.type === 'process:started' || r.type === 'process:ended') return;
    if (r.type.startsWith('change:')) return this.replaying?.onEvent(r);
    if (r.type.startsWith('agent:')) this.lastActivity = Math.max(this.lastActivity ?? 0, r.at);
    if (r.type === 'agent:run-finished' && !r.process) {
      const p = r.payload as { runId: string; reason: AgentStopReason; error?: RunError };
      const end = { reason: p.reason, ...(p.error ? { error: p.error } : {}) };
      const waiter = this.waitingEnd.get(p.runId);
      if (waiter) {
        this.waitingEnd.delete(p.runId);
        waiter(end);
      } else if (this.replaying?.running) this.ended.set(p.runId, end);
    }
    if (r.type === 'agent:run-started') {
      const p = r.payload as { runId: string; continued: boolean };
      // A run started here or elsewhere (another process, another page): follow it, unless the
      // person watches a run that is still going. Following applies this record too.
      if (this.shown?.runId !== p.runId && !this.shown?.running && this.loadingRun !== p.runId) {
        void this.follow(p.runId, p.continued, r.process, r);
        void this.past.refresh();
        return;
      }
    }
    if (r.payload && (r.payload as { runId?: string }).runId === this.loadingRun) return;
    if (this.shown && applyEvent(this.shown, r)) this.version++;
    if (r.type === 'agent:run-started' || r.type === 'agent:run-finished') void this.past.refresh();
  }

  /**
   * Shows run `runId` as it goes: its earlier turns from its transcript (a follow-up's), then this
   * turn's events from the history, then the live ones.
   */
  private async follow(runId: string, continued: boolean, process: string | undefined, started: EventRecord): Promise<void> {
    let prior: TranscriptEntry[] = [];
    if (continued) {
      this.loadingRun = runId;
      prior = (await this.readRun(runId)) ?? [];
      if (this.loadingRun !== runId) return;
      const started = prior.findLastIndex((e) => e.type === 'started');
      const done = prior.slice(started).some((e) => e.type === 'finished');
      if (started >= 0 && !done) prior = prior.slice(0, started);
    }
    const shown: Shown = { ...(continued ? viewFromTranscript(runId, prior) : emptyView(runId)), ...(process ? { process } : {}) };
    const history = this.feed?.history(VIEW_EVENTS) ?? [];
    const from = history.findLastIndex((e) => e.type === 'agent:run-started' && (e.payload as { runId: string }).runId === runId);
    // The history holds this turn's records from its start (the record that started it included);
    // without a history, that record alone.
    for (const e of from >= 0 ? history.slice(from) : [started]) applyEvent(shown, e as EventRecord);
    this.loadingRun = undefined;
    this.shown = shown;
    this.version++;
  }

  private async readRun(runId: string): Promise<TranscriptEntry[] | undefined> {
    const r = await this.call<{ entries: TranscriptEntry[] }>('read_run', { runId });
    return r.ok ? r.value.entries : undefined;
  }

  getStatus(): WidgetStatus {
    const s = this.snapshot;
    const settings = s?.settings;
    const model = settings?.model ? `${settings.model.provider} · ${settings.model.model}` : 'no model set';
    const last = this.shown?.turns.at(-1)?.finished;
    // A run of this system the panel follows is running before the next snapshot says so.
    const running = (s?.active.length ?? 0) > 0 || (!!this.shown?.running && !this.shown.process);
    const runs = s?.runs.length ?? 0;
    return {
      state: this.context?.report.state === 'failed' || !s ? 'disabled' : running ? 'active' : last?.reason === 'error' ? 'error' : last?.reason === 'max-steps' ? 'warning' : 'idle',
      primaryMetric: running ? 'running' : `${s?.moreRuns ? `${runs}+` : runs} run${runs === 1 ? '' : 's'}`,
      secondaryMetric: model,
      // The newest of what this page saw happen and what the transcripts say (a run of an earlier visit).
      lastActivity: Math.max(this.lastActivity ?? 0, s?.runs[0]?.updatedAt ?? 0) || undefined,
    };
  }

  /** Sends the goal box: a follow-up of the run in view, or a new run (`start_run`). */
  async send(goal?: string): Promise<void> {
    const box = this.renderRoot.querySelector<HTMLTextAreaElement>('textarea');
    const text = (goal ?? box?.value ?? '').trim();
    if (!this.context || !text || this.shown?.running) return;
    if (box) box.value = '';
    // A follow-up continues a run of this system; a run of another process is watched, not continued here.
    const runId = this.shown && this.shown.turns.length && !this.shown.process ? this.shown.runId : undefined;
    if (!runId) this.shown = undefined;
    this.refused = undefined;
    const r = await this.call<{ runId: string }>('start_run', { goal: text, ...(runId ? { runId } : {}) });
    // A run that never started has no events to show: say why here.
    if (!r.ok) {
      this.failure = undefined;
      this.refused = { code: r.error.code, message: r.error.message, ...(r.hint ? { hint: r.hint } : {}) };
    }
  }

  /** Stops the run in view, in whichever process runs it. */
  private stop(): void {
    const s = this.shown;
    if (s) void this.call('stop_run', { runId: s.runId, ...(s.process ? { process: s.process } : {}) });
  }

  /** One replay turn: started with `start_run`, over when its `agent:run-finished` is heard. */
  private readonly playTurn: ReplayTurn = async (o) => {
    if (o.runId) this.ended.delete(o.runId);
    const r = await this.call<{ runId: string }>('start_run', { goal: o.goal, ...(o.runId ? { runId: o.runId } : {}), model: o.model, toolMode: o.toolMode });
    if (!r.ok) return { runId: o.runId ?? '', reason: 'refused', error: { code: r.error.code, message: r.error.message, ...(r.hint ? { hint: r.hint } : {}) } };
    const runId = r.value.runId;
    const end = this.ended.get(runId) ?? (await new Promise<{ reason: AgentStopReason; error?: RunError }>((resolve) => this.waitingEnd.set(runId, resolve)));
    this.ended.delete(runId);
    return { runId, ...end };
  };

  /** Replays a recorded example: its first turn now, the others as the person continues. */
  private replay(example: RecordedExample): void {
    if (!this.context || this.shown?.running) return;
    this.shown = undefined;
    this.refused = undefined;
    this.replaying = new ReplaySession(this.playTurn, example, () => this.requestUpdate());
    void this.replaying.next();
  }

  private newRun(): void {
    this.shown = undefined;
    this.replaying = undefined;
    this.renderRoot.querySelector<HTMLTextAreaElement>('textarea')?.focus();
  }

  private async reopen(run: RunSummary): Promise<void> {
    const entries = await this.readRun(run.runId);
    if (!entries) return;
    const shown: Shown = { ...viewFromTranscript(run.runId, entries), ...(run.process ? { process: run.process } : {}) };
    // A run still going elsewhere keeps streaming into the view.
    if (this.snapshot?.active.includes(run.runId) || run.reason === 'running') shown.running = !shown.turns.at(-1)?.finished;
    this.shown = shown;
    this.version++;
  }

  private onKeydown(e: KeyboardEvent): void {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void this.send();
    }
  }

  private processes(): readonly ProcessInfo[] {
    return this.view?.processes() ?? [];
  }

  protected override renderBody(): TemplateResult {
    const settings = this.snapshot?.settings;
    const running = !!this.shown?.running;
    const following = !!this.shown?.turns.length && !this.shown.process;
    const where = processLabel(this.shown?.process, this.processes());
    return html`
      <details class="settings" ?open=${settings?.source === 'none'}>
        <summary>Model settings${settings?.model ? `: ${settings.model.provider} · ${settings.model.model}${settings.model.baseURL ? ` at ${settings.model.baseURL}` : ''}` : ' (none yet)'}</summary>
        <agent-settings .view=${this.view} .settings=${settings}></agent-settings>
      </details>
      <label class="goal-label" for="goal">${following ? 'Follow-up (continues this run)' : 'Goal'}</label>
      <textarea id="goal" placeholder=${following ? 'Ask a follow-up about this run — Ctrl+Enter sends' : 'e.g. Add up the numbers in data/numbers.txt and write the sum to results/sum.txt — Ctrl+Enter sends'} @keydown=${this.onKeydown}></textarea>
      <div class="row">
        <button type="button" data-control="send" ?disabled=${running || !this.context} @click=${() => this.send()}>${following ? 'Send follow-up' : 'Send'}</button>
        <button type="button" data-control="stop" ?disabled=${!running} @click=${() => this.stop()}>■ Stop</button>
        ${this.shown?.turns.length ? html`<button type="button" data-control="new-run" ?disabled=${running} @click=${() => this.newRun()}>New run</button>` : nothing}
        <span class="kbd">Ctrl/Cmd+Enter sends</span>
      </div>
      ${this.refused ? html`<p class="message" role="alert">${this.refused.message}${this.refused.hint ? ` ${this.refused.hint}` : ''}</p>` : nothing}
      ${renderExamples(this.snapshot?.examples ?? [], { open: settings?.source === 'none', disabled: running || !this.context, replay: (e) => this.replay(e) })}
      ${where ? html`<p class="where" data-process=${this.shown!.process!}>Run ${this.shown!.runId} in process ${where}</p>` : nothing}
      <agent-transcript .view=${this.shown} .version=${this.version}></agent-transcript>
      ${renderReplay(this.replaying)}
      ${this.past.render(this.snapshot, this.shown?.runId, this.processes(), (r) => void this.reopen(r))}
    `;
  }
}

if (!customElements.get('agent-widget')) customElements.define('agent-widget', AgentWidget);
