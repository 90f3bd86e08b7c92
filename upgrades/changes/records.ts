/**
 * The change records in memory, as folded from the lineage: lookups by target, version numbers,
 * new ids, and what a record's requirements (the changes it builds on) have become. Only the
 * change path writes them, always through the lineage first.
 */
import type { ChangeFilter, ChangeKind, ChangeRecord } from '../../src/contracts/change-contract.ts';

/** Every change record by id, in the order first recorded. */
export class ChangeRecords {
  private readonly byId: Map<string, ChangeRecord>;

  constructor(initial: readonly ChangeRecord[]) {
    this.byId = new Map(initial.map((r) => [r.id, r]));
  }

  get(id: string): ChangeRecord | undefined {
    return this.byId.get(id);
  }

  /** Adds a new record. */
  add(r: ChangeRecord): void {
    this.byId.set(r.id, r);
  }

  all(): ChangeRecord[] {
    return [...this.byId.values()];
  }

  /** A fresh id: `c` and 8 hex digits. */
  newId(): string {
    for (;;) {
      const bytes = crypto.getRandomValues(new Uint8Array(4));
      const id = `c${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
      if (!this.byId.has(id)) return id;
    }
  }

  /** A target's records, oldest first. */
  history(kind: ChangeKind, target: string): ChangeRecord[] {
    return this.all().filter((r) => r.kind === kind && r.target === target);
  }

  /** The change in force for a target (a retirement included). */
  activeOf(kind: ChangeKind, target: string): ChangeRecord | undefined {
    return this.history(kind, target).find((r) => r.status === 'active');
  }

  /** The version number of `hash` for a target: the one it had before, or the next free one. */
  versionFor(kind: ChangeKind, target: string, hash: string): number {
    const all = this.history(kind, target);
    const same = all.find((r) => r.hash === hash && r.version !== null);
    return same ? same.version! : Math.max(0, ...all.map((r) => r.version ?? 0)) + 1;
  }

  /** Whether change `id` came into force (it is, or was until a later version replaced it). */
  cameIn(id: string): boolean {
    return ['active', 'superseded'].includes(this.byId.get(id)?.status ?? '');
  }

  /** The requirements of `r` not in force yet. */
  unmet(r: ChangeRecord): string[] {
    return (r.requires ?? []).filter((id) => !this.cameIn(id));
  }

  /** A requirement of `r` that can no longer come into force (rejected, rolled back, gone), if any. */
  failedRequirement(r: ChangeRecord): { id: string; status: string } | undefined {
    return (r.requires ?? []).map((id) => this.byId.get(id) ?? { id, status: 'lost' }).find((q) => q.status === 'rejected' || q.status === 'rolled-back' || q.status === 'lost');
  }

  /** Pending records that build on change `id`. */
  dependentsOf(id: string): ChangeRecord[] {
    return this.all().filter((p) => p.status === 'pending' && p.requires?.includes(id));
  }

  /** Records matching `filter`, newest first. */
  list(filter: ChangeFilter = {}): ChangeRecord[] {
    return this.all()
      .filter((r) => (!filter.kind || r.kind === filter.kind) && (!filter.target || r.target === filter.target) && (!filter.status || r.status === filter.status))
      .map((r, i) => ({ r, i }))
      .sort((a, b) => b.r.at - a.r.at || b.i - a.i)
      .map(({ r }) => r);
  }
}

/** Runs operations one target at a time, in call order: `serial(key, op)` starts `op` after every earlier one on `key`. */
export function targetQueue(): <T>(key: string, op: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<unknown>>();
  return (key, op) => {
    const next = (queues.get(key) ?? Promise.resolve()).then(op, op);
    const settled = next.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => queues.get(key) === settled && queues.delete(key));
    return next;
  };
}
