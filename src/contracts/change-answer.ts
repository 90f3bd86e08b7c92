/**
 * How a screen tells what a tool call did when the tool proposes a change (`create_tool`,
 * `update_upgrade`, `create_blueprint`, `update_persona`, ...): the call succeeds — the tool ran
 * and answered — but what it answers is a change that may be in force, waiting for a person, or
 * rejected by its gate. Every screen (the agent's terminal lines, the dashboard's transcript,
 * `armature call`'s exit status) reads that answer through {@link changeOutcomeOf}, so a rejected
 * change never looks like a success anywhere.
 */

/** What became of the change a tool call proposed. */
export interface ChangeOutcome {
  /** The change record's id, e.g. `c1a2b3c4d`. */
  change: string;
  /** `active`: in force; `pending`: waits for a person; `rejected`: its gate (or a person) refused it; `retired`: taken out of service. */
  status: 'active' | 'pending' | 'rejected' | 'retired';
  /** The gate's verdict in words, when the answer gives it. */
  report?: string;
}

const CHANGE_ID = /^c[0-9a-f]{8}$/;
const STATUSES: ReadonlySet<string> = new Set(['active', 'pending', 'rejected', 'retired']);

/**
 * The change a tool result (`{ ok: true, value }`, as the ToolRunner returns it and the agent
 * gives it to the model) answers, or `undefined` when the result is not a change answer.
 */
export function changeOutcomeOf(result: unknown): ChangeOutcome | undefined {
  const r = result as { ok?: unknown; value?: { change?: unknown; status?: unknown; report?: unknown } } | null | undefined;
  const v = r?.ok === true ? r.value : undefined;
  if (!v || typeof v !== 'object' || typeof v.change !== 'string' || !CHANGE_ID.test(v.change)) return undefined;
  if (typeof v.status !== 'string' || !STATUSES.has(v.status)) return undefined;
  return { change: v.change, status: v.status as ChangeOutcome['status'], ...(typeof v.report === 'string' && v.report ? { report: v.report } : {}) };
}

/** Whether `result` succeeded as a call and as a change: a call that answers a rejected change did not. */
export function succeeded(result: { ok: boolean } & Record<string, unknown>): boolean {
  return result.ok && changeOutcomeOf(result)?.status !== 'rejected';
}
