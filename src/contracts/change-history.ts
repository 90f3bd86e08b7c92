/**
 * How agent-made changes are shown to the agent: the status and test rows its create/update tool
 * answers, and one version of a thing as its history tools (`tool_history`, `upgrade_history`)
 * show it: what the change record holds, dates as ISO text, tests as counts.
 */
import type { ChangeRecord, ChangeTest } from './change-contract.ts';

/** The history entry of change `r`: optional fields appear only when the record has them. */
export function historyEntry(r: ChangeRecord) {
  return {
    change: r.id,
    version: r.version,
    hash: r.hash,
    action: r.action,
    status: r.status,
    reason: r.reason,
    ...(r.outcome ? { outcome: r.outcome } : {}),
    parent: r.parent,
    by: r.caller.via,
    persona: r.caller.persona,
    ...(r.caller.run ? { run: r.caller.run } : {}),
    ...(r.approver ? { approver: r.approver } : {}),
    ...(r.requires ? { requires: r.requires } : {}),
    at: new Date(r.at).toISOString(),
    ...(r.activatedAt ? { activatedAt: new Date(r.activatedAt).toISOString() } : {}),
    ...(r.endedAt ? { endedAt: new Date(r.endedAt).toISOString() } : {}),
    tests: { passed: r.tests.filter((t) => t.ok).length, total: r.tests.length },
  };
}

/** What every kind's answer to a proposed change says besides its target, tests and hint. */
export interface ChangeAnswerBase {
  /** The version it would be, or is (`null` for a retirement). */
  version: number | null;
  /** The change record's id (`armature approve <change>`). */
  change: string;
  status: 'active' | 'pending' | 'rejected';
  /** The gate's verdict in words, and what the change waits for (see {@link reportOf}). */
  report?: string;
}

/** The {@link ChangeAnswerBase} of change `r`. */
export function changeAnswerBase(r: ChangeRecord): ChangeAnswerBase {
  const report = reportOf(r);
  return { version: r.version, change: r.id, status: answerStatus(r), ...(report ? { report } : {}) };
}

/** The status a create/update tool answers for change `r`: in force, waiting for a person, or not taken. */
export function answerStatus(r: ChangeRecord): 'active' | 'pending' | 'rejected' {
  return r.status === 'active' || r.status === 'pending' ? r.status : 'rejected';
}

/**
 * The report an answer (or the command line) gives of change `r`: its outcome and, while it waits
 * for changes it builds on, which ones must come into force first. The record keeps the two apart
 * (`outcome`, `requires`), so the outcome never has to be edited when they do.
 */
export function reportOf(r: Pick<ChangeRecord, 'status' | 'outcome' | 'requires'>): string | undefined {
  const waiting = r.status === 'pending' && r.requires?.length ? `it builds on change${r.requires.length === 1 ? '' : 's'} ${r.requires.join(', ')}, which must come into force first` : undefined;
  return [r.outcome, waiting].filter(Boolean).join('; ') || undefined;
}

/**
 * How a pending change's hint begins, for every kind: who decides it, where, and — when it builds
 * on changes not yet in force — in which order. The caller adds what holds until then.
 */
export function approvalHint(r: Pick<ChangeRecord, 'id' | 'requires'>): string {
  const after = r.requires?.length ? `, after ${r.requires.join(', ')}, which it builds on` : '';
  return `A person must approve change ${r.id} (on the dashboard's Changes, or with "armature approve ${r.id}")${after}`;
}

/**
 * What every kind's answer says of one test: whether it passed and, when not, its error's code and
 * message (never the error's details).
 */
export function testOutcome(t: ChangeTest): { ok: boolean; error?: { code: string; message: string } } {
  return t.error ? { ok: t.ok, error: { code: t.error.code, message: t.error.message } } : { ok: t.ok };
}

/** How long a test ran, for an answer: ms to a tenth. */
export function testMs(t: ChangeTest): number {
  return Math.round(t.ms * 10) / 10;
}

/**
 * A change's status as people read it. A change in force with no version — a retirement, or the
 * canary's rollback of a first version — means its target is out of service: "active" beside no
 * version would read as if the target were running.
 */
export function statusLabel(r: Pick<ChangeRecord, 'status' | 'hash'>): string {
  return r.status === 'active' && r.hash === null ? 'out of service' : r.status;
}

/** A change's version as people read it: `v3`, or `none` for a change that leaves its target without one. */
export function versionLabel(r: Pick<ChangeRecord, 'version'>): string {
  return r.version === null ? 'none' : `v${r.version}`;
}
