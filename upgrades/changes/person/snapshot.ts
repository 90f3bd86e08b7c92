import type { ChangeKind, ChangesApi, ChangeStatus } from '../../../src/contracts/change-contract.ts';
import type { ErrorInfo } from '../../../src/kernel/errors.ts';

/** How many versions in force, and load failures, the snapshot lists. */
const MAX_LISTED = 100;

/** A change named in the snapshot. */
export interface ChangeRef {
  id: string;
  kind: ChangeKind;
  target: string;
  version: number | null;
}

/** What the Changes card shows beside its paged list (`list_changes`): the counts, what is in force, what failed at boot. */
export interface ChangesSnapshot {
  /** Changes recorded. */
  total: number;
  /** Changes per status. */
  counts: Record<ChangeStatus, number>;
  /** The agent-made versions in force (retirements left out), at most 100: what safe mode left out. */
  inForce: ChangeRef[];
  /** Versions in force that could not be brought back at boot. */
  loadFailures: { change: ChangeRef; error: ErrorInfo }[];
  /** Whether the system was booted in safe mode. */
  safe: boolean;
  /** When the newest change was proposed, ms since the epoch. */
  newestAt?: number;
}

const ref = (r: ChangeRef): ChangeRef => ({ id: r.id, kind: r.kind, target: r.target, version: r.version });

/** The Changes snapshot now. */
export function changesSnapshot(changes: Pick<ChangesApi, 'list' | 'loadFailures' | 'safe'>): ChangesSnapshot {
  const all = changes.list();
  const counts: Record<ChangeStatus, number> = { pending: 0, active: 0, rejected: 0, 'rolled-back': 0, superseded: 0 };
  for (const r of all) counts[r.status]++;
  const failures = changes.loadFailures();
  return {
    total: all.length,
    counts,
    inForce: all.filter((r) => r.status === 'active' && r.version !== null).slice(0, MAX_LISTED).map(ref),
    loadFailures: failures.slice(0, MAX_LISTED).map((f) => ({ change: ref(f.change), error: { code: f.error.code, message: f.error.message } })),
    safe: changes.safe,
    ...(all[0] ? { newestAt: all[0].at } : {}),
  };
}
