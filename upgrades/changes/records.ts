/**
 * The change records in memory, as folded from the journal, indexed so that no operation scans
 * them all: by id, by target (its history, the change in force, its version numbers), pending by
 * persona, and pending by the change they build on. Only the fold (`journal-fold.ts`) changes
 * them, through the methods below that keep the indexes true.
 */
import type { ChangeFilter, ChangeKind, ChangeRecord } from '../../src/contracts/change-contract.ts';

const keyOf = (kind: ChangeKind, target: string) => `${kind}\u0000${target}`;

/** A target's history and what is in force for it. */
interface TargetIndex {
  history: ChangeRecord[];
  active?: ChangeRecord;
  versions: Map<string, number>;
  maxVersion: number;
}

/** Every change record by id, in the order first recorded. */
export class ChangeRecords {
  private readonly byId = new Map<string, ChangeRecord>();
  private readonly order = new Map<string, number>();
  private readonly targets = new Map<string, TargetIndex>();
  private readonly pending = new Map<string, ChangeRecord>();
  private readonly pendingByPersona = new Map<string, number>();
  private readonly dependents = new Map<string, Set<string>>();

  get(id: string): ChangeRecord | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  private target(kind: ChangeKind, target: string): TargetIndex {
    const key = keyOf(kind, target);
    let t = this.targets.get(key);
    if (!t) this.targets.set(key, (t = { history: [], versions: new Map(), maxVersion: 0 }));
    return t;
  }

  /** Adds a new record (its status already set). */
  add(r: ChangeRecord): void {
    this.byId.set(r.id, r);
    this.order.set(r.id, this.order.size);
    const t = this.target(r.kind, r.target);
    t.history.push(r);
    if (r.hash !== null && r.version !== null) {
      if (!t.versions.has(r.hash)) t.versions.set(r.hash, r.version);
      t.maxVersion = Math.max(t.maxVersion, r.version);
    }
    if (r.status === 'active') t.active = r;
    if (r.status === 'pending') this.enterPending(r);
  }

  /** Sets fields of `r` (status included), keeping the indexes true. */
  update(r: ChangeRecord, set: Partial<ChangeRecord>): void {
    const was = r.status;
    Object.assign(r, set);
    if (was === r.status) return;
    if (was === 'pending') this.leavePending(r);
    if (r.status === 'pending') this.enterPending(r);
    const t = this.target(r.kind, r.target);
    if (r.status === 'active') t.active = r;
    else if (t.active === r) t.active = undefined;
  }

  private enterPending(r: ChangeRecord): void {
    this.pending.set(r.id, r);
    this.pendingByPersona.set(r.caller.persona, (this.pendingByPersona.get(r.caller.persona) ?? 0) + 1);
    for (const req of r.requires ?? []) {
      let set = this.dependents.get(req);
      if (!set) this.dependents.set(req, (set = new Set()));
      set.add(r.id);
    }
  }

  private leavePending(r: ChangeRecord): void {
    this.pending.delete(r.id);
    this.pendingByPersona.set(r.caller.persona, (this.pendingByPersona.get(r.caller.persona) ?? 1) - 1);
    for (const req of r.requires ?? []) this.dependents.get(req)?.delete(r.id);
  }

  all(): ChangeRecord[] {
    return [...this.byId.values()];
  }

  /** Every target that has a history, for `kind`. */
  targetsOf(kind: ChangeKind): string[] {
    const out: string[] = [];
    for (const [key, t] of this.targets) if (key.startsWith(`${kind}\u0000`) && t.history.length) out.push(t.history[0]!.target);
    return out;
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
    return [...(this.targets.get(keyOf(kind, target))?.history ?? [])];
  }

  /** The change in force for a target (a retirement included). */
  activeOf(kind: ChangeKind, target: string): ChangeRecord | undefined {
    return this.targets.get(keyOf(kind, target))?.active;
  }

  /** The version number of `hash` for a target: the one it had before, or the next free one. */
  versionFor(kind: ChangeKind, target: string, hash: string): number {
    const t = this.targets.get(keyOf(kind, target));
    return t?.versions.get(hash) ?? (t?.maxVersion ?? 0) + 1;
  }

  /** How many changes of persona `persona` wait for a person. */
  pendingOf(persona: string): number {
    return this.pendingByPersona.get(persona) ?? 0;
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
    return [...(this.dependents.get(id) ?? [])].map((d) => this.byId.get(d)!).filter((p) => p.status === 'pending');
  }

  /** Records matching `filter`, newest first. */
  list(filter: ChangeFilter = {}): ChangeRecord[] {
    const from = filter.kind && filter.target ? (this.targets.get(keyOf(filter.kind, filter.target))?.history ?? []) : filter.status === 'pending' ? [...this.pending.values()] : [...this.byId.values()];
    return from
      .filter((r) => (!filter.kind || r.kind === filter.kind) && (!filter.target || r.target === filter.target) && (!filter.status || r.status === filter.status))
      .sort((a, b) => b.at - a.at || this.order.get(b.id)! - this.order.get(a.id)!);
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
