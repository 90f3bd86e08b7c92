/**
 * The agent panel's replay parts: the list of recorded examples (from the Agent's snapshot) with a
 * Replay button each, and where a replay stands — waiting for the person to approve its changes,
 * ready for the next turn, done, or stopped. Rendered into the panel's shadow root, so the panel
 * styles them.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { RecordedExample } from '../../../src/contracts/agent-contract.ts';
import type { ReplaySession } from './replay-session.ts';

/** The examples to replay: open on a first screen (no model chosen yet). */
export function renderExamples(examples: readonly RecordedExample[], o: { open: boolean; disabled: boolean; replay(e: RecordedExample): void }): TemplateResult | typeof nothing {
  if (!examples.length) return nothing;
  return html`<details class="examples" ?open=${o.open}>
    <summary>Replay an example (no model, no key)</summary>
    <p class="what">Recorded runs, played back against this system: the model's answers come from the recording, every tool runs for real, and the replay stops at the first tool result that differs.</p>
    <ul aria-label="recorded examples">
      ${examples.map(
        (e) => html`<li data-example=${e.name}>
          <strong>${e.title}</strong> <span class="what">(${e.goals.length} turn${e.goals.length === 1 ? '' : 's'})</span>
          ${e.description ? html`<p class="what">${e.description}</p>` : nothing}
          ${e.label ? html`<p class="label">${e.label}</p>` : nothing}
          <button type="button" data-control="replay-example" ?disabled=${o.disabled} @click=${() => o.replay(e)}>Replay</button>
        </li>`,
      )}
    </ul>
  </details>`;
}

/** Where the replay in progress stands, with "Continue the replay" when a turn is left. */
export function renderReplay(r: ReplaySession | undefined): TemplateResult | typeof nothing {
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
