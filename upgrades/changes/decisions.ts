/**
 * The decisions of the change path, each made holding the target's lock across processes over a
 * fresh read of the journal, and written as one journal line: bringing a change into force (here
 * first, then the line that also ends the change it replaces), deciding a gated proposal
 * (rejected, pending, or in force), and settling the pending changes that build on a decided one.
 */
import type { ChangeCaller, ChangeKind, ChangeKindHandler, ChangeOptions, ChangeRecord, ChangeTest } from '../../src/contracts/change-contract.ts';
import { ArmatureError, describeError } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { ChangeStore, NewEntry } from './change-store.ts';
import type { LiveTargets } from './live-targets.ts';
import { isPerson } from './policy.ts';
import { trimTest, verdictOf } from './verdict.ts';

/** What the decisions work with, from the change path. */
export interface DecisionContext {
  store: ChangeStore;
  live: LiveTargets;
  bus: Pick<EventSource, 'emit'>;
  kinds: ReadonlyMap<ChangeKind, ChangeKindHandler>;
  /** Runs `op` after every earlier operation on the same target in this process. */
  serial<T>(kind: ChangeKind, target: string, op: () => Promise<T>): Promise<T>;
  readContent(r: ChangeRecord): Promise<unknown>;
  /** Who lets `r` into force without a person now, if anyone. */
  automatic(r: ChangeRecord): string | undefined;
  callerOf(o: ChangeOptions): ChangeCaller;
  maxValueChars: number;
  log(text: string): void;
}

/** The decision flows over `ctx`. */
export function createDecisions(ctx: DecisionContext) {
  const { store, live, bus, kinds, serial, readContent, automatic, callerOf, maxValueChars } = ctx;
  const { records } = store;
  const activeOf = (kind: ChangeKind, target: string) => records.activeOf(kind, target);
  const sync = () => store.refresh();

  /** Runs `fn` holding `target`'s lock across processes, over a fresh fold. */
  const locked = <T>(kind: ChangeKind, target: string, fn: () => Promise<T>): Promise<T> =>
    store.lockTarget(kind, target, async () => {
      await sync();
      return fn();
    });

  /** Appends `entry`, folds it, and checks that it was taken (`DECISION_CONFLICT` when the fold refused it). */
  const write = async (entry: NewEntry, taken: () => boolean): Promise<void> => {
    await store.append(entry);
    await sync();
    if (!taken()) {
      const id = 'id' in entry ? entry.id : 'record' in entry ? entry.record.id : '?';
      throw new ArmatureError('DECISION_CONFLICT', `[changes] the decision on change ${id} was refused: another process decided on its target at the same time`, {
        hint: 'Look again with armature changes, then decide again.',
      });
    }
  };

  /**
   * Brings `r` (new, or pending) into force — here first, then in the journal with one line that
   * also ends the change it replaces — or records why it could not. Runs holding the target's lock.
   */
  async function bringIn(h: ChangeKindHandler, r: ChangeRecord, content: unknown, approver: string, isNew: boolean, previousReason?: string): Promise<ChangeRecord> {
    const previous = activeOf(r.kind, r.target);
    const decidedAt = r.decidedAt ?? Date.now();
    const person = isPerson(approver as never) ? { approver } : {};
    try {
      await live.bringIn(h, r, content);
    } catch (e) {
      const outcome = `it could not be brought into force: ${describeError(e)}`;
      if (isNew) await write({ t: 'new', record: { ...r, status: 'rejected', decidedAt, outcome, ...person } }, () => records.get(r.id)?.status === 'rejected');
      else await write({ t: 'set', id: r.id, from: 'pending', set: { status: 'rejected', decidedAt, outcome, ...person }, at: Date.now() }, () => records.get(r.id)?.status === 'rejected');
      if (r.hash) await h.release?.(r.target, r.hash);
      return records.get(r.id)!;
    }
    const now = Date.now();
    let end: { status: 'superseded' | 'rolled-back'; outcome: string } | undefined;
    if (previous) {
      end =
        r.action === 'rollback'
          ? { status: 'rolled-back', outcome: previousReason ?? `rolled back to ${r.version === null ? 'no version' : `version ${r.version}`} by ${r.caller.via}${r.reason ? `: ${r.reason}` : ''}` }
          : { status: 'superseded', outcome: `replaced by ${r.action === 'retire' ? 'its retirement' : `version ${r.version}`} (change ${r.id})` };
    }
    const set: Partial<ChangeRecord> = { approver, decidedAt, activatedAt: now, ...(previous ? { replaced: previous.id } : {}), ...(r.outcome ? { outcome: r.outcome } : {}) };
    try {
      await write(
        { t: 'activate', id: r.id, ...(isNew ? { record: { ...r, status: 'pending' } } : {}), replaced: previous?.id ?? null, set, ...(end ? { end } : {}), at: now },
        () => records.get(r.id)?.status === 'active',
      );
    } catch (e) {
      // Not recorded: this process must not run what the journal does not call in force.
      void serial(r.kind, r.target, () => live.follow(r.kind, r.target)).catch(() => undefined);
      throw e;
    }
    return records.get(r.id)!;
  }

  /** Gates `content` and decides it: rejected, pending, or in force. Runs in the target's queue. */
  async function gateAndDecide(h: ChangeKindHandler, target: string, action: ChangeRecord['action'], content: unknown, o: ChangeOptions): Promise<ChangeRecord> {
    const hash = await store.writeVersion({ kind: h.kind, target, content });
    const base = {
      id: records.newId(),
      kind: h.kind,
      target,
      action,
      version: records.versionFor(h.kind, target, hash),
      hash,
      parent: activeOf(h.kind, target)?.version ?? null,
      reason: o.reason ?? '',
      caller: callerOf(o),
      at: Date.now(),
    };
    bus.emit('change:proposed', { change: structuredClone(base) });
    let problems: string[];
    let tests: ChangeTest[];
    let requires: string[] = [];
    try {
      ({ problems, tests, requires = [] } = await h.gate(target, content, { hash, caller: base.caller }));
    } catch (e) {
      problems = [`the gate itself failed: ${describeError(e)}`];
      tests = [];
    }
    return locked(h.kind, target, async () => {
      // Another process may have decided on the target while the gate ran.
      const r: ChangeRecord = {
        ...base,
        version: records.versionFor(h.kind, target, hash),
        parent: activeOf(h.kind, target)?.version ?? null,
        status: 'pending',
        tests: tests.map((t) => trimTest(t, maxValueChars)),
      };
      requires = [...new Set(requires)].filter((id) => records.get(id) && !records.cameIn(id));
      if (requires.length) r.requires = requires;
      const verdict = verdictOf(problems, tests);
      if (verdict) {
        await write({ t: 'new', record: { ...r, status: 'rejected', decidedAt: Date.now(), outcome: `rejected: ${verdict}` } }, () => records.get(r.id)?.status === 'rejected');
        await h.release?.(target, hash);
        return records.get(r.id)!;
      }
      r.outcome = `${tests.length} of ${tests.length} test${tests.length === 1 ? '' : 's'} passed`;
      if (!records.unmet(r).length) {
        const approver = automatic(r);
        if (approver) return bringIn(h, r, content, approver, true);
      }
      await write({ t: 'new', record: r }, () => records.get(r.id)?.status === 'pending');
      await h.release?.(target, hash);
      return records.get(r.id)!;
    });
  }

  /**
   * What the decision on `r` means for the pending changes that build on it: a rejection rejects
   * them; coming into force lets in those whose requirements are now met and that need no person
   * (proposed by one, or under an `auto` policy). Runs outside `r`'s queue, each on its own target's.
   */
  async function settle(r: ChangeRecord): Promise<void> {
    for (const p of records.dependentsOf(r.id)) {
      const h = kinds.get(p.kind);
      if (!h) continue;
      const changed = await serial(p.kind, p.target, () =>
        locked(p.kind, p.target, async () => {
          if (p.status !== 'pending') return false;
          const failed = records.failedRequirement(p);
          if (failed) {
            await write({ t: 'set', id: p.id, from: 'pending', set: { status: 'rejected', decidedAt: Date.now(), outcome: `rejected: it builds on change ${failed.id}, which was ${failed.status}` }, at: Date.now() }, () => p.status === 'rejected');
            if (p.hash) await h.release?.(p.target, p.hash);
            return true;
          }
          const approver = automatic(p);
          if (records.unmet(p).length || !approver) return false;
          await bringIn(h, p, await readContent(p), approver, false);
          return true;
        }),
      );
      if (changed) await settle(p);
    }
  }

  return { locked, write, bringIn, gateAndDecide, settle };
}
