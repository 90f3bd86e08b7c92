/**
 * How one change looks on the changes widget: a line with its status, target and version, the
 * proposer's reason, the verdict, the buttons a person may press, and folded details: the code,
 * a diff against the version it was proposed over, and the test report. Everything from an agent
 * (code, reasons, test values) is bound as text: nothing of it is ever HTML.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import type { ChangePresentation, ChangeRecord, ChangeTest } from '../../src/contracts/change-contract.ts';
import { counted } from '../../src/widgets/module-widget.ts';
import { formatRelative } from '../../src/widgets/relative-time.ts';
import { diffStats, lineDiff, type DiffRow } from './line-diff.ts';
import { errorLine } from '../../src/kernel/errors.ts';
import { statusLabel } from '../../src/contracts/change-history.ts';

/** What a person may do with one change on the widget. */
export interface ChangeActions {
  approve?(): void;
  reject?(): void;
  /** Brings this change's version back (shown for versions no longer in force). */
  rollback?(): void;
  /** Takes the version in force out of service (shown on it). */
  retire?(): void;
}

/** Styles of a change in the timeline (used inside the widget's shadow root). */
export const changeStyles = css`
  ol.timeline { list-style: none; margin: 8px 0 0; padding: 0; display: grid; gap: 8px; }
  li.change { border: 1px solid #dde2ea; border-left-width: 4px; border-radius: 6px; padding: 6px 10px; }
  li.change[data-status='active'] { border-left-color: #0a6b2f; }
  li.change[data-status='pending'] { border-left-color: #8a5a00; background: #fffaf0; }
  li.change[data-status='rejected'] { border-left-color: #a61b1b; }
  li.change[data-status='rolled-back'] { border-left-color: #6b4fa8; }
  li.change[data-status='superseded'] { border-left-color: #9aa3b5; }
  .line { display: flex; flex-wrap: wrap; gap: 6px; align-items: baseline; }
  .badge { font-size: 11px; font-weight: 600; padding: 0 6px; border-radius: 8px; border: 1px solid currentColor; }
  .badge.active { color: #0a6b2f; } .badge.pending { color: #8a5a00; } .badge.rejected { color: #a61b1b; }
  .badge.rolled-back { color: #6b4fa8; } .badge.superseded { color: #5c6578; } .badge.testing { color: #1f4fa8; }
  .target { font-family: ui-monospace, monospace; font-weight: 600; }
  .meta { color: #4a5366; font-size: 12px; }
  .reason { margin: 4px 0 0; white-space: pre-wrap; word-break: break-word; }
  .outcome { margin: 2px 0 0; font-size: 12px; color: #4a5366; white-space: pre-wrap; word-break: break-word; }
  li.change[data-status='rejected'] .outcome { color: #7d1111; }
  .actions { display: flex; gap: 6px; margin-top: 6px; }
  details { margin-top: 4px; font-size: 12px; }
  pre.diff span { display: block; }
  pre.diff .add { background: #e6f6ea; color: #0b4d22; }
  pre.diff .del { background: #fbe9e9; color: #7d1111; }
  pre.diff .fold { color: #6b7385; font-style: italic; }
  td.value { font-family: ui-monospace, monospace; word-break: break-all; }
`;

const ACTION_LABEL: Record<ChangeRecord['action'], string> = { create: 'created', update: 'updated', rollback: 'rolled back', retire: 'retired' };

/** Diffs by the presentation they were computed for: versions never change, so neither do their diffs. */
const diffs = new WeakMap<ChangePresentation, DiffRow[]>();
function diffOf(current: ChangePresentation, previous: ChangePresentation | undefined): DiffRow[] {
  let rows = diffs.get(current);
  if (!rows) diffs.set(current, (rows = lineDiff(previous?.code ?? '', current.code)));
  return rows;
}

/** One change of the timeline. */
export function renderChange(r: ChangeRecord, shown: { current?: ChangePresentation; previous?: ChangePresentation } | undefined, actions: ChangeActions): TemplateResult {
  const version = r.version === null ? 'no version' : `v${r.version}`;
  const by = r.caller.via === 'system' ? 'the system' : `${r.caller.persona} via ${r.caller.via}${r.caller.run ? ` (run ${r.caller.run})` : ''}`;
  return html`<li class="change" data-change=${r.id} data-status=${r.status}>
    <div class="line">
      <span class="badge ${r.status}">${statusLabel(r)}</span>
      <span class="target">${r.target}</span>
      <span>${version}</span>
      <span class="meta">${r.kind} ${ACTION_LABEL[r.action]} by ${by} · ${formatRelative(r.activatedAt ?? r.decidedAt ?? r.at)} · ${r.id}${r.approver ? ` · approved by ${r.approver}` : ''}</span>
    </div>
    ${r.reason ? html`<p class="reason">${r.reason}</p>` : nothing}
    ${r.outcome ? html`<p class="outcome">${r.outcome}</p>` : nothing}
    ${r.requires?.length && r.status === 'pending' ? html`<p class="outcome" data-requires>Builds on ${r.requires.join(', ')}: approve ${r.requires.length === 1 ? 'it' : 'them'} first.</p>` : nothing}
    ${renderActions(r, actions)}
    ${shown?.current || r.tests.length ? renderDetails(r, shown) : nothing}
  </li>`;
}

function renderActions(r: ChangeRecord, a: ChangeActions): TemplateResult | typeof nothing {
  const buttons: TemplateResult[] = [];
  if (a.approve) buttons.push(html`<button type="button" data-action="approve" @click=${a.approve}>Approve</button>`);
  if (a.reject) buttons.push(html`<button type="button" data-action="reject" @click=${a.reject}>Reject</button>`);
  if (a.rollback) buttons.push(html`<button type="button" data-action="rollback" @click=${a.rollback}>Roll back to v${r.version}</button>`);
  if (a.retire) buttons.push(html`<button type="button" data-action="retire" @click=${a.retire}>Retire</button>`);
  return buttons.length ? html`<div class="actions">${buttons}</div>` : nothing;
}

function renderDetails(r: ChangeRecord, shown: { current?: ChangePresentation; previous?: ChangePresentation } | undefined): TemplateResult {
  const current = shown?.current;
  const previous = shown?.previous;
  const rows = current ? diffOf(current, previous) : [];
  const stats = diffStats(rows);
  const passed = r.tests.filter((t) => t.ok).length;
  return html`${current
      ? html`<details class="code">
            <summary>Code${current.language ? ` (${current.language})` : ''}, ${counted(current.code.replace(/\n$/, '').split('\n').length, 'line')}</summary>
            ${current.details?.description ? html`<p class="outcome">${String(current.details.description)}</p>` : nothing}
            <pre aria-label="code of ${r.target} ${r.version === null ? '' : `v${r.version}`}">${current.code}</pre>
          </details>
          <details class="diff">
            <summary>${previous ? `Diff against v${r.parent}: +${stats.added} −${stats.removed}` : 'Diff: the first version (every line is new)'}</summary>
            <pre class="diff" aria-label="diff">${rows.map((row) =>
              row.op === 'fold'
                ? html`<span class="fold">… ${row.count} unchanged lines</span>`
                : html`<span class=${row.op}>${row.op === 'add' ? '+ ' : row.op === 'del' ? '− ' : '  '}${row.text}</span>`,
            )}</pre>
          </details>`
      : nothing}
    ${r.tests.length
      ? html`<details class="tests">
          <summary>Tests: ${passed} of ${r.tests.length} passed</summary>
          <table aria-label="test report">
            <thead><tr>${r.tests.some((t) => t.name) ? html`<th>test</th>` : nothing}<th>args</th><th>result</th><th>value or error</th><th class="num">ms</th></tr></thead>
            <tbody>${r.tests.map((t) => renderTest(t, r.tests.some((x) => x.name)))}</tbody>
          </table>
        </details>`
      : nothing}`;
}

function renderTest(t: ChangeTest, named: boolean): TemplateResult {
  // A check (a blueprint's, an overlay's) passes or fails without a value: nothing to show then.
  const shown = t.error ? errorLine(t.error) : 'value' in t ? (JSON.stringify(t.value) ?? 'undefined') : '—';
  return html`<tr>
    ${named ? html`<td>${t.name ?? ''}</td>` : nothing}
    <td class="value">${JSON.stringify(t.args)}</td>
    <td class=${t.ok ? 'ok' : 'fail'}>${t.ok ? '✓ passed' : '✗ failed'}</td>
    <td class="value">${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}</td>
    <td class="num">${t.ms.toFixed(1)}</td>
  </tr>`;
}
