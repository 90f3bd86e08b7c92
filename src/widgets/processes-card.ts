import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import type { EventRecord } from '../kernel/event-bus.ts';
import type { ProcessEndReason, ProcessInfo, SystemView } from '../view/system-view.ts';
import { BusController } from './bus-controller.ts';
import { counted, widgetStyles } from './module-widget.ts';
import { formatRelative, RelativeTimeController } from './relative-time.ts';

/** What the card knows of one process beyond its info: how it ended, and its modules from its events. */
interface Seen {
  reason?: ProcessEndReason;
  loaded: Set<string>;
  failed: Set<string>;
}

const ENDED: Record<ProcessEndReason, string> = { exited: 'exited', crashed: 'crashed', lost: 'lost (no heartbeat)' };

/**
 * `<processes-card .view=${view}>`: the processes on the data folder of an attached system — each
 * `armature agent`, `armature mcp`, library `boot()` and the dashboard's own — with what they run,
 * their persona, pid, since when, and the modules their events reported; live from
 * `process:started` / `process:ended`, ended ones greyed with how they ended. Nothing from a
 * process is rendered as HTML.
 */
export class ProcessesCard extends LitElement {
  static override properties = { view: { attribute: false } };
  static override styles = [
    widgetStyles,
    css`
      tr[data-ended] { color: #6b7385; }
      tr[data-ended] td:first-child::before { content: '– '; }
      tr:not([data-ended]) td:first-child::before { content: '● '; color: #0a6b2f; }
      .mods, .own { font-size: 11px; color: #4a5366; }
    `,
  ];

  declare view: SystemView | undefined;
  private readonly seen = new Map<string, Seen>();
  protected readonly clock = new RelativeTimeController(this);
  private readonly events = new BusController(this, () => this.view?.events, ['process:started', 'process:ended', 'module:loaded', 'module:failed'], (r) => this.onEvent(r as EventRecord));

  private seenOf(id: string): Seen {
    let s = this.seen.get(id);
    if (!s) this.seen.set(id, (s = { loaded: new Set(), failed: new Set() }));
    return s;
  }

  private onEvent(r: EventRecord): void {
    if (r.type === 'process:ended') this.seenOf((r.payload as { process: ProcessInfo }).process.id).reason = (r.payload as { reason: ProcessEndReason }).reason;
    else if (r.type === 'process:started') delete this.seenOf((r.payload as { process: ProcessInfo }).process.id).reason;
    else if (r.process && !(r.payload as { parent?: string }).parent) {
      const s = this.seenOf(r.process);
      const id = (r.payload as { id: string }).id;
      if (r.type === 'module:loaded') {
        s.loaded.add(id);
        s.failed.delete(id);
      } else {
        s.failed.add(id);
        s.loaded.delete(id);
      }
    }
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('view')) this.events.connect();
  }

  /** The processes: the view's list, with the latest info its events gave. */
  private processes(): ProcessInfo[] {
    const byId = new Map<string, ProcessInfo>();
    for (const p of this.view?.processes() ?? []) byId.set(p.id, p);
    for (const r of this.view?.events.history(['process:started', 'process:ended']) ?? []) byId.set(r.payload.process.id, r.payload.process);
    // Running ones first, then the most recently started.
    return [...byId.values()].sort((a, b) => Number(!!this.ended(a)) - Number(!!this.ended(b)) || b.startedAt - a.startedAt);
  }

  private ended(p: ProcessInfo): string | undefined {
    const reason = this.seen.get(p.id)?.reason;
    if (reason) return ENDED[reason];
    return p.endedAt ? 'ended' : undefined;
  }

  private renderRow(p: ProcessInfo): TemplateResult {
    const ended = this.ended(p);
    const s = this.seen.get(p.id);
    const own = p.id === this.view?.process?.id;
    return html`<tr data-process=${p.id} ?data-ended=${!!ended} ?data-own=${own}>
      <td>${p.id}${own ? html` <span class="own">(this dashboard's system)</span>` : nothing}</td>
      <td>${p.command}</td>
      <td>${p.persona}</td>
      <td class="num">${p.pid}</td>
      <td><time datetime=${new Date(p.startedAt).toISOString()}>${formatRelative(p.startedAt)}</time></td>
      <td>${ended ? html`${ended}${p.endedAt ? html` <time datetime=${new Date(p.endedAt).toISOString()}>${formatRelative(p.endedAt)}</time>` : nothing}` : 'running'}
        ${s && (s.loaded.size || s.failed.size) ? html`<div class="mods">${counted(s.loaded.size, 'module')}${s.failed.size ? `, failed: ${[...s.failed].join(', ')}` : ''}</div>` : nothing}</td>
    </tr>`;
  }

  override render(): TemplateResult {
    const all = this.processes();
    const running = all.filter((p) => !this.ended(p)).length;
    return html`<section class="card" aria-label="processes on the data folder">
      <header><h3>Processes</h3><span class="state state-${running ? 'active' : 'idle'}" role="status" aria-label="state: ${running ? 'active' : 'idle'}">${running ? '● active' : '○ idle'}</span></header>
      <div class="metrics"><span class="primary">${counted(running, 'process', 'processes')} running</span><span class="secondary">${all.length - running} ended</span></div>
      ${all.length
        ? html`<table aria-label="processes">
            <thead><tr><th>process</th><th>command</th><th>persona</th><th class="num">pid</th><th>started</th><th>state</th></tr></thead>
            <tbody>${all.map((p) => this.renderRow(p))}</tbody>
          </table>`
        : html`<p class="empty">No other process on this data folder yet: an armature agent, armature mcp or a boot() there appears here.</p>`}
    </section>`;
  }
}

if (!customElements.get('processes-card')) customElements.define('processes-card', ProcessesCard);
