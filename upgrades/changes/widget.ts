import { css, html, nothing } from 'lit';
import type { ChangeRecord, ChangesApi, LoadFailure } from '../../src/contracts/change-contract.ts';
import type { ArmatureEventType } from '../../src/kernel/events.ts';
import { describeError } from '../../src/kernel/errors.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { changeStyles, renderChange, type ChangeActions } from './change-view.ts';
import { metadata } from './index.ts';

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

/** How many changes the timeline shows (newest first). */
const SHOWN = 50;

/**
 * `<changes-widget>`: the timeline of every change agents made — kind, target, version, status,
 * reason, the code and its diff against the version before, the test report — with Approve /
 * Reject for pending changes and Roll back for earlier versions. Updated from `change:*` events,
 * never polled; every decision goes through the Changes API as the caller `ui` (a person).
 */
export class ChangesWidget extends ModuleWidget<ChangesApi> {
  static override properties = { ...ModuleWidget.properties, busy: { state: true }, problem: { state: true } };
  static override styles = [
    widgetStyles,
    changeStyles,
    css`
      .testing { font-size: 12px; color: #1f4fa8; margin: 4px 0; }
      .failures { margin: 6px 0; padding: 6px 8px; border-radius: 4px; background: #fdf1f1; color: #7d1111; font-size: 12px; }
      .more { font-size: 12px; color: #4a5366; }
    `,
  ];

  /** The change an action is running for. */
  declare busy: string | undefined;
  /** What the last action answered when it failed. */
  declare problem: string | undefined;
  /** Changes whose gate is running: proposed, not decided yet. */
  private readonly testing = new Map<string, { target: string; version: number | null; at: number }>();
  private lastActivity: number | undefined;
  /** What each change shows: its version and the one before never change, so they are read once. */
  private readonly shown = new Map<string, ReturnType<ChangesApi['present']>>();

  private readonly events = new BusController(this, () => this.bus, CHANGE_EVENTS, (r) => {
    this.lastActivity = r.at;
    const change = (r.payload as { change: { id: string; target: string; version: number | null } }).change;
    if (r.type === 'change:proposed') this.testing.set(change.id, { target: change.target, version: change.version, at: r.at });
    else this.testing.delete(change.id);
  });

  protected override onContext(): void {
    this.events.connect();
  }

  private get changes(): ChangesApi | undefined {
    return this.context?.api;
  }

  getStatus(): WidgetStatus {
    const all = this.changes?.list() ?? [];
    const pending = all.filter((r) => r.status === 'pending').length;
    const failures = this.changes?.loadFailures().length ?? 0;
    return {
      state: this.context?.report.state === 'failed' ? 'error' : failures ? 'error' : pending ? 'warning' : this.testing.size ? 'active' : 'idle',
      primaryMetric: counted(all.length, 'change'),
      secondaryMetric: `${pending} pending · ${all.filter((r) => r.status === 'active').length} in force${this.testing.size ? ` · ${this.testing.size} testing` : ''}`,
      lastActivity: this.lastActivity ?? all[0]?.at,
      ...(pending ? { message: `${counted(pending, 'change')} waiting for your approval.` } : {}),
    };
  }

  /** Runs a person's decision; its failure is shown, never thrown. */
  private async act(id: string, what: () => Promise<unknown>): Promise<void> {
    if (this.busy) return;
    this.busy = id;
    this.problem = undefined;
    try {
      await what();
    } catch (e) {
      this.problem = describeError(e);
    } finally {
      this.busy = undefined;
    }
  }

  private actionsFor(r: ChangeRecord, newestOfVersion: boolean): ChangeActions {
    const api = this.changes!;
    if (this.busy) return {};
    if (r.status === 'pending') {
      return {
        approve: () => void this.act(r.id, () => api.approve(r.id, { caller: 'ui' })),
        reject: () => void this.act(r.id, () => api.reject(r.id, { caller: 'ui', reason: 'rejected on the dashboard' })),
      };
    }
    // The version in force can be taken out: the undo of a first version, which has none to roll back to.
    if (r.status === 'active' && r.hash !== null) return { retire: () => void this.act(r.id, () => api.retire(r.kind, r.target, { caller: 'ui', reason: 'retired on the dashboard' })) };
    const inForce = api.active(r.kind, r.target);
    const earlier = (r.status === 'superseded' || r.status === 'rolled-back') && r.version !== null && newestOfVersion && inForce?.version !== r.version;
    return earlier ? { rollback: () => void this.act(r.id, () => api.rollback(r.kind, r.target, r.version!, { caller: 'ui', reason: 'rolled back on the dashboard' })) } : {};
  }

  private presented(api: ChangesApi, id: string) {
    if (!this.shown.has(id)) this.shown.set(id, api.present(id));
    return this.shown.get(id);
  }

  private renderFailures(failures: LoadFailure[]) {
    if (!failures.length) return nothing;
    return html`<div class="failures" role="alert">
      ${failures.map((f) => html`<div>${f.change.target} v${f.change.version} could not be loaded at boot and was skipped: ${f.error.message}</div>`)}
    </div>`;
  }

  protected override renderBody() {
    const api = this.changes;
    if (!api) return html`<p class="empty">The change path did not load.</p>`;
    const all = api.list();
    const seen = new Set<string>();
    const newest = new Set(all.filter((r) => r.version !== null && !seen.has(`${r.target}@${r.version}`) && seen.add(`${r.target}@${r.version}`)).map((r) => r.id));
    return html`${this.renderFailures(api.loadFailures())}
      ${this.problem ? html`<p class="message" role="alert">${this.problem}</p>` : nothing}
      ${[...this.testing.values()].map((t) => html`<p class="testing" role="status"><span class="badge testing">testing</span> ${t.target} ${t.version === null ? '' : `v${t.version}`}: its gate is running…</p>`)}
      ${all.length
        ? html`<ol class="timeline" aria-label="changes, newest first">${all.slice(0, SHOWN).map((r) => renderChange(r, this.presented(api, r.id), this.actionsFor(r, newest.has(r.id))))}</ol>
            ${all.length > SHOWN ? html`<p class="more">${all.length - SHOWN} older changes are not shown (armature changes --json lists them).</p>` : nothing}`
        : html`<p class="empty">No changes yet. When an agent makes a tool, a blueprint or an upgrade, or changes its persona, its versions appear here.</p>`}`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, ChangesWidget);
