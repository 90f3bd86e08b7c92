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
  SelfModificationPolicy,
} from '../../src/kernel/change-contract.ts';
import { ArmatureError, describeError, toErrorInfo } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { ToolCaller } from '../../src/kernel/events.ts';
import { toDisposable } from '../../src/kernel/lifecycle.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { SystemArea } from '../workspace/system-area.ts';
import { LineageStore } from './lineage.ts';
import { RunTracker } from './run-tracker.ts';
import { trimTest, verdictOf } from './verdict.ts';

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
}

/** Whether `caller` is a person (the dashboard or the command line): only people approve. */
export function isPerson(caller: ToolCaller): boolean {
  return caller === 'ui' || caller === 'cli';
}

const POLICY_FIELD = { tool: 'tools', upgrade: 'upgrades', blueprint: 'blueprints', persona: 'persona' } as const;

/** Creates the change path over `options.area`, loading the lineage recorded there. */
export function createChanges(options: ChangesOptions): ChangesApi & { dispose(): void; problems: string[] } {
  const { bus, persona } = options;
  const maxValueChars = options.maxTestValueChars ?? 4000;
  const store = new LineageStore(options.area);
  const loaded = store.load();
  const records = new Map(loaded.records.map((r) => [r.id, r]));
  const kinds = new Map<ChangeKind, ChangeKindHandler>();
  const runs = new RunTracker(bus);
  const failures: LoadFailure[] = [];
  const queues = new Map<string, Promise<unknown>>();

  /** Runs `op` after every earlier operation on the same target. */
  const serial = <T>(kind: ChangeKind, target: string, op: () => Promise<T>): Promise<T> => {
    const key = `${kind}\u0000${target}`;
    const next = (queues.get(key) ?? Promise.resolve()).then(op, op);
    const settled = next.catch(() => undefined);
    queues.set(key, settled);
    void settled.then(() => queues.get(key) === settled && queues.delete(key));
    return next;
  };

  const handlerOf = (kind: ChangeKind): ChangeKindHandler => {
    const h = kinds.get(kind);
    if (h) return h;
    throw new ArmatureError('KIND_UNAVAILABLE', `[changes] no upgrade handles changes of kind ${quote(kind)} in persona ${persona.id}`, {
      hint: kind === 'tool' ? `Load MadeTools: add it to "upgrades" in modules/personas/${persona.id}.json.` : `Load the upgrade for ${kind} changes in this persona.`,
    });
  };

  const policy = (kind: ChangeKind): SelfModificationPolicy => persona.selfModification?.[POLICY_FIELD[kind]] ?? 'ask';

  const checkPolicy = (kind: ChangeKind, caller: ToolCaller) => {
    if (isPerson(caller) || policy(kind) !== 'off') return;
    throw new ArmatureError('SELF_MODIFICATION_OFF', `[changes] persona ${persona.id} may not change ${POLICY_FIELD[kind]} (selfModification.${POLICY_FIELD[kind]} is "off")`, {
      hint: `A person can allow it: set "selfModification": { "${POLICY_FIELD[kind]}": "ask" } in modules/personas/${persona.id}.json.`,
    });
  };

  const newId = (): string => {
    for (;;) {
      const bytes = crypto.getRandomValues(new Uint8Array(4));
      const id = `c${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
      if (!records.has(id)) return id;
    }
  };

  const history = (kind: ChangeKind, target: string) => [...records.values()].filter((r) => r.kind === kind && r.target === target);
  const activeOf = (kind: ChangeKind, target: string) => history(kind, target).find((r) => r.status === 'active');

  /** The version number of `hash` for a target: the one it had before, or the next free one. */
  const versionFor = (kind: ChangeKind, target: string, hash: string): number => {
    const all = history(kind, target);
    const same = all.find((r) => r.hash === hash && r.version !== null);
    return same ? same.version! : Math.max(0, ...all.map((r) => r.version ?? 0)) + 1;
  };

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
      records.set(r.id, r);
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
      version: versionFor(h.kind, target, hash),
      hash,
      parent: active?.version ?? null,
      reason: o.reason ?? '',
      caller: callerOf(o),
      at: Date.now(),
    };
    bus.emit('change:proposed', { change: structuredClone(base) });
    let problems: string[];
    let tests: ChangeTest[];
    try {
      ({ problems, tests } = await h.gate(target, content, { hash, caller: base.caller }));
    } catch (e) {
      problems = [`the gate itself failed: ${describeError(e)}`];
      tests = [];
    }
    const r: ChangeRecord = { ...base, status: 'pending', tests: tests.map((t) => trimTest(t, maxValueChars)) };
    const verdict = verdictOf(problems, tests);
    if (verdict) {
      await commit(r, { status: 'rejected', decidedAt: Date.now(), outcome: `rejected: ${verdict}` });
      emit('change:rejected', r);
      await h.release?.(target, hash);
      return r;
    }
    r.outcome = `${tests.length} of ${tests.length} test${tests.length === 1 ? '' : 's'} passed`;
    if (isPerson(o.caller)) return activate(h, r, content, o.caller);
    if (policy(h.kind) === 'auto') return activate(h, r, content, 'auto');
    await commit(r, {});
    emit('change:pending', r);
    await h.release?.(target, hash);
    return r;
  }

  const notFound = (id: string) =>
    new ArmatureError('CHANGE_NOT_FOUND', `[changes] no change ${quote(id)}`, {
      hint: (() => {
        const pending = [...records.values()].filter((r) => r.status === 'pending').map((r) => r.id);
        return pending.length ? `Pending changes: ${pending.join(', ')}.` : 'No change is pending: list them with armature changes.';
      })(),
    });

  const refuseAgent = (what: string, caller: ToolCaller) =>
    new ArmatureError('APPROVAL_REFUSED', `[changes] only a person can ${what} a change (from the dashboard or with armature ${what}); the caller was ${quote(caller)}`, {
      hint: 'An agent can never approve or reject a change, its own or another\'s: ask a person to review it.',
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
      return serial(h.kind, target, () => gateAndDecide(h, target, request.action, request.content, request));
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
      return serial(r.kind, r.target, async () => {
        if (r.status !== 'pending') throw new ArmatureError('CHANGE_NOT_PENDING', `[changes] change ${id} is ${r.status}, not pending`, { hint: 'Only pending changes are approved or rejected.' });
        const content = await readContent(r);
        await commit(r, { approver: o.caller, decidedAt: Date.now() });
        emit('change:approved', r);
        return activate(h, r, content, o.caller);
      });
    },

    async reject(id, o) {
      if (!isPerson(o.caller)) throw refuseAgent('reject', o.caller);
      const r = records.get(id);
      if (!r) throw notFound(id);
      return serial(r.kind, r.target, async () => {
        if (r.status !== 'pending') throw new ArmatureError('CHANGE_NOT_PENDING', `[changes] change ${id} is ${r.status}, not pending`, { hint: 'Only pending changes are approved or rejected.' });
        await commit(r, { status: 'rejected', decidedAt: Date.now(), outcome: `rejected by ${o.caller}${o.reason ? `: ${o.reason}` : ''}` });
        emit('change:rejected', r);
        return r;
      });
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

    list(filter = {}) {
      return [...records.values()]
        .filter((r) => (!filter.kind || r.kind === filter.kind) && (!filter.target || r.target === filter.target) && (!filter.status || r.status === filter.status))
        .map((r, i) => ({ r, i }))
        .sort((a, b) => b.r.at - a.r.at || b.i - a.i)
        .map(({ r }) => r);
    },

    get: (id) => records.get(id),

    active: activeOf,

    content: (r) => (r.hash === null ? undefined : store.peekVersion(r.hash)?.content),

    present(id) {
      const change = records.get(id);
      if (!change) return undefined;
      const show = (hash: string | null) => {
        const v = hash === null ? undefined : store.peekVersion(hash);
        if (!v) return undefined;
        const h = kinds.get(change.kind);
        try {
          return h ? h.present(v.content) : { code: JSON.stringify(v.content, null, 2) };
        } catch {
          return { code: JSON.stringify(v.content, null, 2) };
        }
      };
      const parent = change.parent === null ? undefined : history(change.kind, change.target).find((r) => r.version === change.parent && r.hash !== null);
      const current = show(change.hash);
      const previous = parent ? show(parent.hash) : undefined;
      return { change, ...(current ? { current } : {}), ...(previous ? { previous } : {}) };
    },

    policy,

    async restore(kind) {
      const h = handlerOf(kind);
      const found: LoadFailure[] = [];
      const targets = [...new Set([...records.values()].filter((r) => r.kind === kind).map((r) => r.target))];
      for (const target of targets) {
        const r = activeOf(kind, target);
        if (!r || r.hash === null) continue;
        await serial(kind, target, async () => {
          try {
            const content = await readContent(r);
            await h.activate(target, content, { change: r.id, version: r.version!, hash: r.hash!, caller: r.caller });
          } catch (e) {
            const failure: LoadFailure = { change: structuredClone(r), error: toErrorInfo(e, 'LOAD_FAILED') };
            found.push(failure);
            failures.push(failure);
            bus.emit('change:load-failed', failure);
          }
        });
      }
      return found;
    },

    loadFailures: () => [...failures],

    dispose: () => runs.dispose(),
  };
  return api;
}
