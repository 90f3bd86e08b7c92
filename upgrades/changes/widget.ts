import { css, html, nothing } from 'lit';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import type { ArmatureEventType } from '../../src/kernel/events.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import type { ChangeAction, ListedChange } from './person/change-tools.ts';
import { changeStyles, renderChange, type ChangeActions } from './change-view.ts';
import { metadata } from './index.ts';
import type { ChangesSnapshot } from './person/snapshot.ts';

/** The events the widget follows: every transition of a change. */
export const CHANGE_EVENTS = [
  'change:proposed',
  'change:rejected',
  'change:pending',
  'change:approved',
  'change:activated',
  'change:superseded',
  'change:rolled-back',
  'change:load-failed',
] as const satisfies readonly ArmatureEventType[];

/** Changes per page: the first page, and each "Show more". */
export const PAGE = 20;
/** The most changes one `list_changes` answers. */
const MAX_PAGE = 100;

/**
 * `<changes-widget>`: the timeline of every change agents made — kind, target, version, status,
 * reason, the code and its diff against the version before, the test report — with the decisions
 * a person may take on each (Approve / Reject for pending changes, Roll back for earlier
 * versions, Retire for the version in force). The list is paged from the store (`list_changes`,
 * newest first, "Show more"), so 10,000 changes cost a page; it is read again when a `change:*`
 * event says something changed, never polled. Every decision is a person-only tool call
 * (`approve_change`, ...) as the caller `ui`.
 */
export class ChangesWidget extends ModuleWidget<ChangesSnapshot> {
  static override properties = { ...ModuleWidget.properties, busy: { state: true }, items: { state: true }, more: { state: true } };
  static override styles = [
    widgetStyles,
    changeStyles,
    css`
      .testing { font-size: 12px; color: #1f4fa8; margin: 4px 0; }
      .failures { margin: 6px 0; padding: 6px 8px; border-radius: 4px; background: #fdf1f1; color: #7d1111; font-size: 12px; }
      .more { font-size: 12px; color: #4a5366; display: flex; gap: 8px; align-items: center; margin-top: 8px; }
      /* A long history scrolls inside the card instead of pushing the cards after it down. */
      .scroll { max-height: min(70vh, 720px); overflow: auto; overscroll-behavior: contain; }
    `,
  ];

  /** The change a decision is running for. */
  declare busy: string | undefined;
  /** The changes loaded so far, newest first. */
  declare items: ListedChange[];
  /** The cursor of the next page, when there is one. */
  declare more: string | undefined;
  /** Changes whose gate is running: proposed, not decided yet. */
  private readonly testing = new Map<string, { target: string; version: number | null; at: number }>();
  private lastActivity: number | undefined;
  /** A reload is running; `again` when events arrived meanwhile. */
  private loading: { again: boolean } | undefined;

  private readonly events = new BusController(this, () => this.feed, CHANGE_EVENTS, (r) => {
    this.lastActivity = r.at;
    const change = (r.payload as { change: { id: string; target: string; version: number | null } }).change;
    if (r.type === 'change:proposed') this.testing.set(change.id, { target: change.target, version: change.version, at: r.at });
    else this.testing.delete(change.id);
    // History replayed on connect is already in the first page read below.
    if (this.isConnected && this.items !== undefined) void this.reload();
  });

  constructor() {
    super();
    this.items = [];
  }

  protected override onContext(): void {
    this.events.connect();
    void this.reload();
  }

  /** Reads again the pages loaded so far (at least the first), newest first. */
  private async reload(): Promise<void> {
    if (this.loading) {
      this.loading.again = true;
      return;
    }
    this.loading = { again: false };
    try {
      do {
        this.loading.again = false;
        // Down to the oldest change shown so far: new ones arrive at the top, the pages shown stay.
        const oldest = this.items.at(-1)?.id;
        const items: ListedChange[] = [];
        let cursor: string | undefined;
        do {
          const r = await this.call<{ items: ListedChange[]; next_cursor?: string }>('list_changes', { limit: items.length ? MAX_PAGE : PAGE, present: true, ...(cursor ? { cursor } : {}) });
          if (!r.ok) return;
          items.push(...r.value.items);
          cursor = r.value.next_cursor;
        } while (cursor && oldest && !items.some((i) => i.id === oldest));
        this.items = items;
        this.more = cursor;
      } while (this.loading.again);
    } finally {
      this.loading = undefined;
    }
  }

  /** Loads the next page. */
  private async showMore(): Promise<void> {
    if (!this.more || this.loading) return;
    this.loading = { again: false };
    try {
      const r = await this.call<{ items: ListedChange[]; next_cursor?: string }>('list_changes', { limit: PAGE, present: true, cursor: this.more });
      if (!r.ok) return;
      const known = new Set(this.items.map((i) => i.id));
      this.items = [...this.items, ...r.value.items.filter((i) => !known.has(i.id))];
      this.more = r.value.next_cursor;
    } finally {
      const again = this.loading?.again;
      this.loading = undefined;
      if (again) void this.reload();
    }
  }

  getStatus(): WidgetStatus {
    const s = this.snapshot;
    const pending = s?.counts.pending ?? 0;
    const failures = s?.loadFailures.length ?? 0;
    return {
      state: this.context?.report.state === 'failed' ? 'error' : failures ? 'error' : pending ? 'warning' : this.testing.size ? 'active' : 'idle',
      primaryMetric: counted(s?.total ?? 0, 'change'),
      secondaryMetric: `${pending} pending · ${s?.counts.active ?? 0} in force${this.testing.size ? ` · ${this.testing.size} testing` : ''}`,
      lastActivity: this.lastActivity ?? s?.newestAt,
      ...(pending ? { message: `${counted(pending, 'change')} waiting for your approval.` } : {}),
    };
  }

  /** Runs a person's decision; a refusal shows on the card (`failure`), never thrown. */
  private async decide(r: ChangeRecord, action: ChangeAction): Promise<void> {
    if (this.busy) return;
    this.busy = r.id;
    try {
      if (action === 'approve') await this.call('approve_change', { id: r.id });
      else if (action === 'reject') await this.call('reject_change', { id: r.id });
      else if (action === 'rollback') await this.call('rollback_change', { kind: r.kind, target: r.target, version: r.version });
      else await this.call('retire_change', { kind: r.kind, target: r.target });
    } finally {
      this.busy = undefined;
    }
  }

  private actionsFor(item: ListedChange): ChangeActions {
    if (this.busy) return {};
    const out: ChangeActions = {};
    for (const a of item.actions) out[a] = () => void this.decide(item, a);
    return out;
  }

  private renderFailures(failures: ChangesSnapshot['loadFailures']) {
    if (!failures.length) return nothing;
    return html`<div class="failures" role="alert">
      ${failures.map((f) => html`<div>${f.change.target} v${f.change.version} could not be loaded at boot and was skipped: ${f.error.message}</div>`)}
    </div>`;
  }

  protected override renderBody() {
    if (this.context?.report.state === 'failed') return html`<p class="empty">The change path did not load.</p>`;
    const s = this.snapshot;
    const items = this.items;
    const hidden = (s?.total ?? items.length) - items.length;
    return html`${this.renderFailures(s?.loadFailures ?? [])}
      ${[...this.testing.values()].map((t) => html`<p class="testing" role="status"><span class="badge testing">testing</span> ${t.target} ${t.version === null ? '' : `v${t.version}`}: its gate is running…</p>`)}
      ${items.length
        ? html`<div class="scroll"><ol class="timeline" aria-label="changes, newest first">${items.map((r) => renderChange(r, r, this.actionsFor(r)))}</ol></div>
            ${this.more
              ? html`<p class="more"><button type="button" data-control="more-changes" @click=${() => this.showMore()}>Show ${Math.min(PAGE, Math.max(hidden, 1))} more</button> ${hidden > 0 ? `${counted(hidden, 'older change')} not shown yet.` : ''}</p>`
              : nothing}`
        : html`<p class="empty">No changes yet. When an agent makes a tool, a blueprint or an upgrade, or changes its persona, its versions appear here.</p>`}`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, ChangesWidget);
