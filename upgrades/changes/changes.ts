/**
 * The change path: propose -> content-addressed version -> gate -> persona policy -> activate ->
 * record. Rollback and retirement are changes like any other; the canary's revert is the one
 * change that skips gate and policy (it only ever brings back what was approved before).
 * Operations on one target run one at a time, in call order.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type {
  ChangeCaller,
  ChangeKind,
  ChangeKindHandler,
  ChangeOptions,
  ChangeRecord,
  ChangesApi,
  ChangeTest,
  LoadFailure,
  ProposeRequest,
} from '../../src/contracts/change-contract.ts';
import { ArmatureError, describeError, toErrorInfo } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import { toDisposable } from '../../src/kernel/lifecycle.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { SystemArea } from '../workspace/contract.ts';
import { LineageStore } from './lineage.ts';
import { presentChange } from './present.ts';
import { ChangeRecords, targetQueue } from './records.ts';
import { RunTracker } from './run-tracker.ts';
import { trimTest, verdictOf } from './verdict.ts';
import { isPerson, personaPolicy, refuseAgent } from './policy.ts';
import { dependencyOrder } from '../../src/kernel/boot/dependency-order.ts';

/** Options of {@link createChanges}. */
export interface ChangesOptions {
  /** The workspace's hidden area the versions and lineage live in. */
  area: SystemArea;
  /** Where `change:*` go; `agent:*` tell which run made a change. */
  bus: Pick<EventSource, 'emit' | 'on'>;
  /** The booted persona: its `selfModification` policy, and the name in every record. */
  persona: Persona;
  /** Largest test value kept in a record, in characters of JSON (longer ones are cut). Default: 4000. */
  maxTestValueChars?: number;
  /** Safe mode: `restore` brings nothing back. Default: false. */
  safe?: boolean;
}

/** Creates the change path over `options.area`, loading the lineage recorded there. */
export function createChanges(options: ChangesOptions): ChangesApi & { dispose(): void; problems: string[] } {
  const { bus, persona } = options;
  const maxValueChars = options.maxTestValueChars ?? 4000;
  const store = new LineageStore(options.area);
  const loaded = store.load();
  const records = new ChangeRecords(loaded.records);
  const kinds = new Map<ChangeKind, ChangeKindHandler>();
  const runs = new RunTracker(bus);
  const { policy, check: checkPolicy, automatic } = personaPolicy(persona);
  const failures: LoadFailure[] = [];
  const queue = targetQueue();
  /** Runs `op` after every earlier operation on the same target. */
  const serial = <T>(kind: ChangeKind, target: string, op: () => Promise<T>): Promise<T> => queue(`${kind}\u0000${target}`, op);

  const handlerOf = (kind: ChangeKind): ChangeKindHandler => {
    const h = kinds.get(kind);
    if (h) return h;
    throw new ArmatureError('KIND_UNAVAILABLE', `[changes] no upgrade handles changes of kind ${quote(kind)} in persona ${persona.id}`, {
      hint: kind === 'tool' ? `Load MadeTools: add it to "upgrades" in modules/personas/${persona.id}.json.` : `Load the upgrade for ${kind} changes in this persona.`,
    });
  };

  const newId = () => records.newId();
  const history = (kind: ChangeKind, target: string) => records.history(kind, target);
  const activeOf = (kind: ChangeKind, target: string) => records.activeOf(kind, target);

  const callerOf = (o: ChangeOptions): ChangeCaller => {
    const run = runs.runOf(o.caller, o.callId);
    return run ? { persona: persona.id, run, via: o.caller } : { persona: persona.id, via: o.caller };
  };

  const emit = <K extends 'change:rejected' | 'change:pending' | 'change:approved' | 'change:activated' | 'change:superseded'>(type: K, r: ChangeRecord) =>
    bus.emit(type, { change: structuredClone(r) } as never);

  /** Records `patch` on `r` (its first line when it is new), durably, before anyone hears of it. */
  const commit = async (r: ChangeRecord, patch: Partial<ChangeRecord>): Promise<void> => {
    Object.assign(r, patch);
    if (records.get(r.id) === r) await store.transition(r, patch);
    else {
      records.add(r);
      await store.record(r);
    }
  };

  /** Brings `r` into force (or fails it), then retires the change it replaces. */
  async function activate(h: ChangeKindHandler, r: ChangeRecord, content: unknown, approver: string, previousReason?: string): Promise<ChangeRecord> {
    const previous = activeOf(r.kind, r.target);
    const decidedAt = r.decidedAt ?? Date.now();
    try {
      if (r.hash === null) await h.deactivate(r.target);
      else await h.activate(r.target, content, { change: r.id, version: r.version!, hash: r.hash, caller: r.caller });
    } catch (e) {
      await commit(r, { status: 'rejected', decidedAt, outcome: `it could not be brought into force: ${describeError(e)}` });
      emit('change:rejected', r);
      if (r.hash) await h.release?.(r.target, r.hash);
      return r;
    }
    const now = Date.now();
    await commit(r, { status: 'active', approver, decidedAt, activatedAt: now, ...(previous ? { replaced: previous.id } : {}) });
    emit('change:activated', r);
    if (previous && previous !== r) {
      if (r.action === 'rollback') {
        const reason = previousReason ?? `rolled back to ${r.version === null ? 'no version' : `version ${r.version}`} by ${r.caller.via}${r.reason ? `: ${r.reason}` : ''}`;
        await commit(previous, { status: 'rolled-back', endedAt: now, outcome: reason });
        bus.emit('change:rolled-back', { change: structuredClone(previous), reason });
      } else {
        await commit(previous, { status: 'superseded', endedAt: now, outcome: `replaced by ${r.action === 'retire' ? 'its retirement' : `version ${r.version}`} (change ${r.id})` });
        emit('change:superseded', previous);
      }
    }
    return r;
  }

  /** Gates `content` and decides it: rejected, pending, or in force. */
  async function gateAndDecide(h: ChangeKindHandler, target: string, action: ChangeRecord['action'], content: unknown, o: ChangeOptions): Promise<ChangeRecord> {
    const hash = await store.writeVersion({ kind: h.kind, target, content });
    const active = activeOf(h.kind, target);
    const base = {
      id: newId(),
      kind: h.kind,
      target,
      action,
      version: records.versionFor(h.kind, target, hash),
      hash,
      parent: active?.version ?? null,
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
    const r: ChangeRecord = { ...base, status: 'pending', tests: tests.map((t) => trimTest(t, maxValueChars)) };
    requires = [...new Set(requires)].filter((id) => records.get(id) && !records.cameIn(id));
    if (requires.length) r.requires = requires;
    const verdict = verdictOf(problems, tests);
    if (verdict) {
      await commit(r, { status: 'rejected', decidedAt: Date.now(), outcome: `rejected: ${verdict}` });
      emit('change:rejected', r);
      await h.release?.(target, hash);
      return r;
    }
    r.outcome = `${tests.length} of ${tests.length} test${tests.length === 1 ? '' : 's'} passed`;
    if (!records.unmet(r).length) {
      const approver = automatic(r);
      if (approver) return activate(h, r, content, approver);
    }
    await commit(r, {});
    emit('change:pending', r);
    await h.release?.(target, hash);
    return r;
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
      const changed = await serial(p.kind, p.target, async () => {
        if (p.status !== 'pending') return false;
        const failed = records.failedRequirement(p);
        if (failed) {
          await commit(p, { status: 'rejected', decidedAt: Date.now(), outcome: `rejected: it builds on change ${failed.id}, which was ${failed.status}` });
          emit('change:rejected', p);
          if (p.hash) await h.release?.(p.target, p.hash);
          return true;
        }
        const approver = automatic(p);
        if (records.unmet(p).length || !approver) return false;
        await activate(h, p, await readContent(p), approver);
        return true;
      });
      if (changed) await settle(p);
    }
  }

  const notFound = (id: string) =>
    new ArmatureError('CHANGE_NOT_FOUND', `[changes] no change ${quote(id)}`, {
      hint: (() => {
        const pending = records.list({ status: 'pending' }).map((r) => r.id);
        return pending.length ? `Pending changes: ${pending.join(', ')}.` : 'No change is pending: list them with armature changes.';
      })(),
    });

  const readContent = async (r: ChangeRecord): Promise<unknown> => {
    if (r.hash === null) return undefined;
    const v = await store.readVersion(r.hash);
    if (!v) throw new ArmatureError('VERSION_MISSING', `[changes] version ${r.version} of ${r.target} (${r.hash.slice(0, 12)}) is not in the workspace`, { hint: 'Propose it again.' });
    return v.content;
  };

  const api: ChangesApi & { dispose(): void; problems: string[] } = {
    problems: loaded.problems,

    registerKind(handler) {
      if (kinds.has(handler.kind)) throw new ArmatureError('DUPLICATE_KIND', `[changes] changes of kind ${handler.kind} are already handled`);
      kinds.set(handler.kind, handler);
      return toDisposable(() => kinds.get(handler.kind) === handler && kinds.delete(handler.kind));
    },

    async propose(request: ProposeRequest) {
      const h = handlerOf(request.kind);
      checkPolicy(request.kind, request.caller);
      const target = h.targetOf(request.content);
      const r = await serial(h.kind, target, () => gateAndDecide(h, target, request.action, request.content, request));
      await settle(r);
      return r;
    },

    async rollback(kind, target, version, o) {
      const h = handlerOf(kind);
      checkPolicy(kind, o.caller);
      return serial(kind, target, async () => {
        const all = history(kind, target);
        const source = all.find((r) => r.version === version && r.hash !== null);
        if (!source) {
          const known = [...new Set(all.map((r) => r.version).filter((v) => v !== null))].sort((a, b) => a! - b!);
          throw new ArmatureError('VERSION_NOT_FOUND', `[changes] ${target} has no version ${quote(version)}`, {
            hint: known.length ? `Its versions: ${known.join(', ')}.` : `${target} has no versions at all.`,
          });
        }
        if (activeOf(kind, target)?.version === version) {
          throw new ArmatureError('ALREADY_ACTIVE', `[changes] version ${version} of ${target} is already in force`, { hint: 'Roll back to another version.' });
        }
        return gateAndDecide(h, target, 'rollback', await readContent(source), o);
      });
    },

    async retire(kind, target, o) {
      const h = handlerOf(kind);
      checkPolicy(kind, o.caller);
      return serial(kind, target, async () => {
        const active = activeOf(kind, target);
        if (!active || active.hash === null) throw new ArmatureError('NOT_ACTIVE', `[changes] ${target} has no version in force`, { hint: 'Nothing to retire.' });
        const r: ChangeRecord = {
          id: newId(), kind, target, action: 'retire', version: null, hash: null, parent: active.version,
          status: 'pending', reason: o.reason ?? '', caller: callerOf(o), tests: [], at: Date.now(),
        };
        const { status: _s, tests: _t, ...proposed } = r;
        bus.emit('change:proposed', { change: structuredClone(proposed) });
        if (isPerson(o.caller)) return activate(h, r, undefined, o.caller);
        if (policy(kind) === 'auto') return activate(h, r, undefined, 'auto');
        await commit(r, {});
        emit('change:pending', r);
        return r;
      });
    },

    async approve(id, o) {
      if (!isPerson(o.caller)) throw refuseAgent('approve', o.caller);
      const r = records.get(id);
      if (!r) throw notFound(id);
      const h = handlerOf(r.kind);
      const done = await serial(r.kind, r.target, async () => {
        if (r.status !== 'pending') throw new ArmatureError('CHANGE_NOT_PENDING', `[changes] change ${id} is ${r.status}, not pending`, { hint: 'Only pending changes are approved or rejected.' });
        const waiting = records.unmet(r);
        if (waiting.length) {
          const described = waiting.map((w) => records.get(w)!).map((w) => `${w.id} (${w.kind} ${w.target}, ${w.status})`);
          throw new ArmatureError('REQUIREMENT_PENDING', `[changes] change ${id} builds on ${described.join(', ')}: approve ${waiting.length === 1 ? 'it' : 'them'} first`, {
            hint: `armature approve ${[...waiting, id].join(' ')}`,
          });
        }
        const content = await readContent(r);
        await commit(r, { approver: o.caller, decidedAt: Date.now() });
        emit('change:approved', r);
        return activate(h, r, content, o.caller);
      });
      await settle(done);
      return done;
    },

    async reject(id, o) {
      if (!isPerson(o.caller)) throw refuseAgent('reject', o.caller);
      const r = records.get(id);
      if (!r) throw notFound(id);
      const done = await serial(r.kind, r.target, async () => {
        if (r.status !== 'pending') throw new ArmatureError('CHANGE_NOT_PENDING', `[changes] change ${id} is ${r.status}, not pending`, { hint: 'Only pending changes are approved or rejected.' });
        await commit(r, { status: 'rejected', decidedAt: Date.now(), outcome: `rejected by ${o.caller}${o.reason ? `: ${o.reason}` : ''}` });
        emit('change:rejected', r);
        return r;
      });
      await settle(done);
      return done;
    },

    async revert(kind, target, why, onlyIf) {
      const h = handlerOf(kind);
      return serial(kind, target, async () => {
        const active = activeOf(kind, target);
        if (!active || active.hash === null || (onlyIf !== undefined && active.id !== onlyIf)) return undefined;
        const back = active.replaced ? records.get(active.replaced) : undefined;
        let content: unknown;
        let version: number | null = null;
        let hash: string | null = null;
        if (back?.hash) {
          try {
            content = await readContent(back);
            ({ version, hash } = back);
          } catch {
            // The version to go back to is gone: take the target out of service instead.
          }
        }
        const r: ChangeRecord = {
          id: newId(), kind, target, action: 'rollback', version, hash, parent: active.version, status: 'pending',
          reason: why, caller: { persona: persona.id, via: 'system' }, tests: [], at: Date.now(),
        };
        const { status: _s, tests: _t, ...proposed } = r;
        bus.emit('change:proposed', { change: structuredClone(proposed) });
        const done = await activate(h, r, content, 'system', why);
        if (done.status === 'active' || hash === null) return done;
        // The earlier version would not come back: take the target out of service.
        const off: ChangeRecord = { ...r, id: newId(), version: null, hash: null, status: 'pending', outcome: undefined, decidedAt: undefined };
        return activate(h, off, undefined, 'system', why);
      });
    },

    list: (filter) => records.list(filter),

    get: (id) => records.get(id),

    active: activeOf,

    content: (r) => (r.hash === null ? undefined : store.peekVersion(r.hash)?.content),

    present: (id) => presentChange(id, records, store, kinds),

    policy,

    async restore(kind) {
      const h = handlerOf(kind);
      if (options.safe) return [];
      const found: LoadFailure[] = [];
      const fail = (r: ChangeRecord, e: unknown) => {
        const failure: LoadFailure = { change: structuredClone(r), error: toErrorInfo(e, 'LOAD_FAILED') };
        found.push(failure);
        failures.push(failure);
        bus.emit('change:load-failed', failure);
      };
      const targets = [...new Set(records.all().filter((r) => r.kind === kind).map((r) => r.target))];
      const inForce = new Map<string, { r: ChangeRecord; content: unknown }>();
      for (const target of targets) {
        const r = activeOf(kind, target);
        if (!r || r.hash === null) continue;
        try {
          inForce.set(target, { r, content: await readContent(r) });
        } catch (e) {
          fail(r, e);
        }
      }
      for (const target of dependencyOrder(inForce.keys(), (t) => h.dependenciesOf?.(inForce.get(t)!.content) ?? [])) {
        const { r, content } = inForce.get(target)!;
        await serial(kind, target, async () => {
          try {
            await h.activate(target, content, { change: r.id, version: r.version!, hash: r.hash!, caller: r.caller });
          } catch (e) {
            fail(r, e);
          }
        });
      }
      return found;
    },

    safe: options.safe ?? false,

    loadFailures: () => [...failures],

    dispose: () => runs.dispose(),
  };
  return api;
}
