/**
 * Folding the change journal into records: each line is checked (its checksum) and applied only
 * when what it decides still holds at that point of the journal — an activation names the change
 * it replaces, and must find exactly that one in force; a rejection names the status it leaves,
 * and must find the record in it. So the fold has one deterministic outcome whatever order
 * processes wrote in: at most one change in force per target, the one the last valid activation
 * brought in. Lines that fail are skipped and reported as problems (by where they lie), until a
 * later `repair` line records them as reported.
 */
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import type { JournalLine } from '../../src/platform/platform.ts';
import { decodeEntry, type JournalEntry, type Writer } from './journal.ts';
import type { ChangeRecords } from './records.ts';

/** What one applied line did, for the events and for the kinds of other processes. */
export type Transition =
  | { type: 'pending' | 'rejected'; change: ChangeRecord; by: Writer }
  | { type: 'activated'; change: ChangeRecord; approved: boolean; ended?: { change: ChangeRecord; status: 'superseded' | 'rolled-back'; reason: string }; by: Writer }
  | { type: 'counted'; change: ChangeRecord; by: Writer }
  | { type: 'repaired'; lines: { at: number; why: string }[]; notes: string[]; when: number; by: Writer };

/** A line that was not applied. */
export interface FoldProblem {
  at: number;
  why: string;
  /** Who wrote it, when the line could be read. */
  by?: Writer;
}

/** A canary's counts of one change in force, from every process. */
export interface CallCounts {
  calls: number;
  failures: number;
  /** The last failure's error. */
  last?: { code: string; message: string };
}

/** The fold's state besides the records: call counts and what was reported. */
export class FoldState {
  readonly counts = new Map<string, CallCounts>();
  /** Where lines lie that a `repair` line recorded as reported. */
  readonly acknowledged = new Set<number>();
  /** Every recorded repair, oldest first. */
  readonly repairs: { lines: { at: number; why: string }[]; notes: string[]; when: number; pid?: number }[] = [];
  /** Problems found and not recorded yet. */
  problems: FoldProblem[] = [];

  constructor(readonly records: ChangeRecords) {}

  /** Applies complete journal lines in order; resolves to what they did. */
  apply(lines: readonly JournalLine[]): Transition[] {
    const out: Transition[] = [];
    for (const line of lines) {
      const decoded = decodeEntry(line.text);
      if ('why' in decoded) {
        this.problem({ at: line.at, why: decoded.why });
        continue;
      }
      const refused = this.applyEntry(decoded.entry, out);
      if (refused) this.problem({ at: line.at, why: refused, by: decoded.entry.by });
    }
    return out;
  }

  private problem(p: FoldProblem): void {
    if (!this.acknowledged.has(p.at)) this.problems.push(p);
  }

  /** Applies one entry; answers why it was refused, or undefined. */
  private applyEntry(e: JournalEntry, out: Transition[]): string | undefined {
    const records = this.records;
    switch (e.t) {
      case 'new': {
        const r = e.record;
        if (!r || typeof r.id !== 'string' || typeof r.target !== 'string') return 'a new change without a record';
        if (records.get(r.id)) return `change ${r.id} is recorded twice`;
        if (r.status !== 'pending' && r.status !== 'rejected') return `change ${r.id} is recorded new as ${String(r.status)}: only an activation brings one into force`;
        records.add({ ...r });
        out.push({ type: r.status, change: records.get(r.id)!, by: e.by });
        return undefined;
      }
      case 'import': {
        const r = e.record;
        if (!r || typeof r.id !== 'string' || typeof r.target !== 'string') return 'an import without a record';
        if (records.get(r.id)) return `change ${r.id} is recorded twice`;
        if (r.status === 'active' && records.activeOf(r.kind, r.target)) return `an import of change ${r.id} in force while another is in force for ${r.kind} ${r.target}`;
        records.add({ ...r });
        return undefined;
      }
      case 'activate': {
        let r = records.get(e.id);
        if (e.record) {
          if (r) return `change ${e.id} is recorded twice`;
          if (e.record.id !== e.id) return 'an activation whose record has another id';
        } else if (!r) return `an activation of change ${e.id}, which is not recorded`;
        else if (r.status !== 'pending') return `an activation of change ${e.id}, which is ${r.status}, not pending`;
        const { kind, target } = e.record ?? r!;
        const previous = records.activeOf(kind, target);
        if ((previous?.id ?? null) !== e.replaced) {
          return `an activation of change ${e.id} over ${e.replaced ?? 'nothing'}, while ${previous ? `change ${previous.id}` : 'nothing'} was in force for ${kind} ${target}: decided over a stale view`;
        }
        const approved = !e.record && (e.set.approver === 'ui' || e.set.approver === 'cli');
        if (e.record) {
          records.add({ ...e.record, status: 'pending' });
          r = records.get(e.id)!;
        }
        let ended: { change: ChangeRecord; status: 'superseded' | 'rolled-back'; reason: string } | undefined;
        if (previous) {
          // What replaces a change always ends it: never two in force, whatever the line says.
          const end = e.end ?? { status: 'superseded' as const, outcome: `replaced by change ${e.id}` };
          records.update(previous, { status: end.status, endedAt: e.at, outcome: end.outcome });
          ended = { change: previous, status: end.status, reason: end.outcome };
        }
        records.update(r!, { ...e.set, status: 'active' });
        out.push({ type: 'activated', change: r!, approved, ...(ended ? { ended } : {}), by: e.by });
        return undefined;
      }
      case 'set': {
        const r = records.get(e.id);
        if (!r) return `a decision on change ${e.id}, which is not recorded`;
        if (r.status !== e.from) return `a decision on change ${e.id} made while it was ${e.from}, but it is ${r.status}`;
        if (e.set.status === 'active' || e.set.status === 'superseded' || e.set.status === 'rolled-back') return `a decision that sets change ${e.id} ${e.set.status}: only an activation does`;
        records.update(r, e.set);
        if (r.status === 'rejected' || r.status === 'pending') out.push({ type: r.status, change: r, by: e.by });
        return undefined;
      }
      case 'call': {
        const r = records.get(e.id);
        if (!r) return `a call of change ${e.id}, which is not recorded`;
        const c = this.counts.get(e.id) ?? { calls: 0, failures: 0 };
        // Calls past the window are not the canary's: a line written on a stale count is ignored.
        if (c.calls >= e.window) return undefined;
        c.calls++;
        if (!e.ok) {
          c.failures++;
          if (e.error) c.last = e.error;
        }
        this.counts.set(e.id, c);
        out.push({ type: 'counted', change: r, by: e.by });
        return undefined;
      }
      case 'repair': {
        for (const l of e.lines ?? []) this.acknowledged.add(l.at);
        this.problems = this.problems.filter((p) => !this.acknowledged.has(p.at));
        this.repairs.push({ lines: e.lines ?? [], notes: e.notes ?? [], when: e.at, ...(e.by.pid ? { pid: e.by.pid } : {}) });
        out.push({ type: 'repaired', lines: e.lines ?? [], notes: e.notes ?? [], when: e.at, by: e.by });
        return undefined;
      }
      default:
        return `an entry of unknown type ${JSON.stringify(String((e as { t: unknown }).t).slice(0, 40))}`;
    }
  }
}
