/**
 * What is in force in this process, per target, and how it follows the journal: every version the
 * kinds bring in or take out here goes through {@link LiveTargets.bringIn} / `takeOut`, so this
 * process knows which change it runs for each target. When another process (or tab) changes what
 * is in force, {@link LiveTargets.follow} brings this process in line: the version in force there
 * comes into force here, a retirement or rollback there takes it out here. A version that cannot
 * come into force here is reported (`change:load-failed`) and the target stays out of service
 * here, never on a version the history no longer calls in force.
 */
import type { ChangeKind, ChangeKindHandler, ChangeRecord, LoadFailure } from '../../src/contracts/change-contract.ts';
import { toErrorInfo } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';

const keyOf = (kind: ChangeKind, target: string) => `${kind}\u0000${target}`;

/** Options of {@link LiveTargets}. */
export interface LiveTargetsOptions {
  bus: Pick<EventSource, 'emit'>;
  /** The change in force for a target, per the journal. */
  activeOf(kind: ChangeKind, target: string): ChangeRecord | undefined;
  /** A record's stored content, checked against its hash. */
  contentOf(r: ChangeRecord): Promise<unknown>;
  /** The handler of `kind`, when one is registered. */
  handlerOf(kind: ChangeKind): ChangeKindHandler | undefined;
}

/** Which change each target runs in this process. */
export class LiveTargets {
  /** Target -> the change whose version runs here (null: out of service here). */
  private readonly here = new Map<string, string | null>();
  /** Kinds whose targets were restored here: only those follow other processes. */
  private readonly restored = new Set<ChangeKind>();
  readonly failures: LoadFailure[] = [];

  constructor(private readonly o: LiveTargetsOptions) {}

  /** Brings `r`'s version into force here with its kind (throws what the kind throws). */
  async bringIn(h: ChangeKindHandler, r: ChangeRecord, content: unknown): Promise<void> {
    if (r.hash === null) return this.takeOut(h, r.target);
    await h.activate(r.target, content, { change: r.id, version: r.version!, hash: r.hash, caller: r.caller });
    this.here.set(keyOf(r.kind, r.target), r.id);
  }

  /** Takes `target` out of service here. */
  async takeOut(h: ChangeKindHandler, target: string): Promise<void> {
    await h.deactivate(target);
    this.here.set(keyOf(h.kind, target), null);
  }

  /** Marks `kind` restored: from now on its targets follow other processes' decisions. */
  restoredKind(kind: ChangeKind): void {
    this.restored.add(kind);
  }

  /** Reports a version in force that could not be brought in here. */
  fail(r: ChangeRecord, e: unknown): LoadFailure {
    const failure: LoadFailure = { change: structuredClone(r), error: toErrorInfo(e, 'LOAD_FAILED') };
    this.failures.push(failure);
    this.o.bus.emit('change:load-failed', failure);
    return failure;
  }

  /**
   * Brings `target` in line with the journal: runs the change in force there, or nothing when the
   * target is retired or reverted out of service. A no-op when it already does, and for a kind not
   * restored here (safe mode, or before its upgrade's init).
   */
  async follow(kind: ChangeKind, target: string): Promise<void> {
    const h = this.o.handlerOf(kind);
    if (!h || !this.restored.has(kind)) return;
    const want = this.o.activeOf(kind, target);
    const wantId = want && want.hash !== null ? want.id : null;
    const key = keyOf(kind, target);
    const have = this.here.has(key) ? this.here.get(key)! : null;
    if (wantId === have) return;
    if (!want || wantId === null) {
      await this.takeOut(h, target);
      return;
    }
    try {
      await this.bringIn(h, want, await this.o.contentOf(want));
    } catch (e) {
      this.fail(want, e);
      await this.takeOut(h, target).catch(() => undefined);
    }
  }
}
