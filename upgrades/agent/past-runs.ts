/**
 * The agent panel's list of past runs: the newest from the Agent's snapshot, older ones and
 * filtered ones (status, process) paged with `list_runs`, newest first. It holds the list's state
 * for its host and renders it into the host's shadow root, so the panel styles it.
 */
import { html, nothing, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { RunSummary } from '../../src/contracts/agent-contract.ts';
import type { ProcessInfo, SystemView } from '../../src/view/system-view.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import type { AgentSnapshot } from './snapshot.ts';
import { formatUsage } from './transcript-view.ts';

/** Runs per page of "Show more". */
const PAGE = 20;

/** How runs can be filtered on the panel. */
export interface RunFilter {
  status?: RunSummary['reason'];
  process?: string;
}

const STATUSES: RunSummary['reason'][] = ['running', 'answered', 'error', 'max-steps', 'aborted', 'interrupted'];

/** The process a run ran in, in words: `p-2 (agent, pid 4121)`. */
export function processLabel(id: string | undefined, processes: readonly ProcessInfo[]): string | undefined {
  if (!id) return undefined;
  const p = processes.find((x) => x.id === id);
  return p ? `${id} (${p.command}, pid ${p.pid}${p.endedAt ? ', ended' : ''})` : id;
}

/**
 * How a run ended, as the panel says it: a run of another process that is still running has no
 * end in its transcript yet (the system reading it calls that `interrupted`), so while its process
 * lives it is `running`.
 */
export function shownReason(r: RunSummary, processes: readonly ProcessInfo[]): RunSummary['reason'] {
  if (r.reason !== 'interrupted' || !r.process) return r.reason;
  const p = processes.find((x) => x.id === r.process);
  return p && p.endedAt === undefined ? 'running' : r.reason;
}

/** The past runs of the panel. */
export class PastRuns {
  filter: RunFilter = {};
  /** Runs read with list_runs (older pages, or a filter); undefined while the snapshot's suffice. */
  private fetched: RunSummary[] | undefined;
  private cursor: string | undefined;
  private reading = false;
  /** A first page asked for while a read was under way (its size). */
  private again: number | undefined;

  constructor(private readonly host: ReactiveControllerHost, private readonly view: () => SystemView | undefined) {}

  /** The runs shown, and whether older ones can be read. */
  list(snapshot: AgentSnapshot | undefined): { runs: RunSummary[]; more: boolean } {
    if (this.fetched) return { runs: this.fetched, more: this.cursor !== undefined };
    return { runs: snapshot?.runs ?? [], more: !!snapshot?.moreRuns };
  }

  /** Reads the first page again under the filter (the snapshot's list when there is none). */
  async refresh(): Promise<void> {
    if (!this.filter.status && !this.filter.process && !this.fetched) return;
    const shown = Math.max(PAGE, this.fetched?.length ?? 0);
    await this.read(undefined, shown);
  }

  /** Reads the page after the last run shown (the snapshot's, the first time). */
  async more(snapshot: AgentSnapshot | undefined): Promise<void> {
    const last = this.list(snapshot).runs.at(-1);
    await this.read(last && (this.fetched ? this.cursor : last.runId), PAGE, true);
  }

  async setFilter(filter: RunFilter): Promise<void> {
    this.filter = filter;
    this.fetched = undefined;
    this.cursor = undefined;
    if (filter.status || filter.process) await this.read(undefined, PAGE);
    else this.host.requestUpdate();
  }

  private async read(cursor: string | undefined, limit: number, append = false): Promise<void> {
    const view = this.view();
    if (!view) return;
    // One read at a time; a first page asked for meanwhile is read after it (the newest state wins).
    if (this.reading) {
      if (!append) this.again = limit;
      return;
    }
    this.reading = true;
    try {
      const args = { limit: Math.min(200, limit), ...(cursor ? { cursor } : {}), ...(this.filter.status ? { status: this.filter.status } : {}), ...(this.filter.process ? { process: this.filter.process } : {}) };
      const r = await view.callTool<{ runs: RunSummary[]; next_cursor?: string }>('list_runs', args);
      if (!r.ok) return;
      const before = append ? (this.fetched ?? []) : [];
      const known = new Set(before.map((x) => x.runId));
      this.fetched = [...before, ...r.value.runs.filter((x) => !known.has(x.runId))];
      this.cursor = r.value.next_cursor;
    } finally {
      this.reading = false;
      this.host.requestUpdate();
      const again = this.again;
      this.again = undefined;
      if (again !== undefined) void this.read(undefined, again);
    }
  }

  /** The list, its filters and "Show more"; `open` reopens a run. */
  render(snapshot: AgentSnapshot | undefined, current: string | undefined, processes: readonly ProcessInfo[], open: (r: RunSummary) => void): TemplateResult | typeof nothing {
    const { runs, more } = this.list(snapshot);
    const filtered = !!(this.filter.status || this.filter.process);
    if (!runs.length && !filtered) return nothing;
    return html`<h4>Past runs</h4>
      <div class="filters" role="group" aria-label="filter the runs">
        <label>Status <select data-filter="status" @change=${(e: Event) => void this.setFilter({ ...this.filter, status: ((e.target as HTMLSelectElement).value || undefined) as RunFilter['status'] })}>
          <option value="" ?selected=${!this.filter.status}>any</option>
          ${STATUSES.map((s) => html`<option value=${s} ?selected=${this.filter.status === s}>${s}</option>`)}
        </select></label>
        ${processes.length
          ? html`<label>Process <select data-filter="process" @change=${(e: Event) => void this.setFilter({ ...this.filter, process: (e.target as HTMLSelectElement).value || undefined })}>
              <option value="" ?selected=${!this.filter.process}>any</option>
              ${processes.map((p) => html`<option value=${p.id} ?selected=${this.filter.process === p.id}>${processLabel(p.id, processes)}</option>`)}
            </select></label>`
          : nothing}
      </div>
      ${runs.length
        ? html`<ul class="runs" aria-label="past runs">
            ${runs.map(
              (r) => html`<li data-run=${r.runId}>
                <span class="goal" title=${r.goal}>${r.goal}</span>
                <span class="meta">${shownReason(r, processes)} · ${r.steps} step${r.steps === 1 ? '' : 's'} · ${formatUsage(r.usage)} · ${formatRelative(r.updatedAt)}${r.process ? ` · ${processLabel(r.process, processes)}` : ''}</span>
                <button type="button" data-control="open-run" aria-label="Open run: ${r.goal}" ?disabled=${current === r.runId} @click=${() => open(r)}>Open</button>
              </li>`,
            )}
          </ul>`
        : html`<p class="empty">No run matches.</p>`}
      ${more ? html`<button type="button" data-control="more-runs" @click=${() => this.more(snapshot)}>Show older runs</button>` : nothing}`;
  }
}
