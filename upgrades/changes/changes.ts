/**
 * The change path: propose -> content-addressed version -> gate -> persona policy -> activate ->
 * record. Rollback and retirement are changes like any other; the canary's revert is the one
 * change that skips gate and policy (it only ever brings back what was approved before).
 *
 * Every decision on a target is made holding the target's lock across processes, over a fresh
 * read of the journal, and written as one journal line (`journal.ts`); the records and events
 * come from folding that line, as they do for lines other processes write (`announce.ts`), so
 * this process and the others hear of every transition the same way. Operations on one target
 * run one at a time here, in call order; the gate (the tests) runs outside the lock.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type {
  CallCount,
  ChangeCaller,
  ChangeKind,
  ChangeKindHandler,
  ChangeOptions,
  ChangeRecord,
  ChangesApi,
  LoadFailure,
  ProposeRequest,
} from '../../src/contracts/change-contract.ts';
import { ArmatureError, describeError } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import { toDisposable } from '../../src/kernel/lifecycle.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { SharedStore } from '../../src/platform/platform.ts';
import type { SystemArea } from '../workspace/contract.ts';
import { importLegacy } from './legacy-import.ts';
import { dependencyOrder } from '../../src/kernel/boot/dependency-order.ts';
import { announce } from './announce.ts';
import { ChangeStore } from './change-store.ts';
import { LiveTargets } from './live-targets.ts';
import { openJournal } from './open-journal.ts';
import { isPerson, personaPolicy, refuseAgent } from './policy.ts';
import { createDecisions } from './decisions.ts';
import { presentChange } from './present.ts';
import { targetQueue } from './records.ts';
import { RunTracker } from './run-tracker.ts';

/** Options of {@link createChanges}. */
export interface ChangesOptions {
  /** The shared store the versions and journal live in (`platform.openShared('changes')`). */
  store: SharedStore;
  /** Where `change:*` go; `agent:*` tell which run made a change. */
  bus: Pick<EventSource, 'emit' | 'on'>;
  /** The booted persona: its `selfModification` policy, and the name in every record. */
  persona: Persona;
  /** Largest test value kept in a record, in characters of JSON (longer ones are cut). Default: 4000. */
  maxTestValueChars?: number;
  /** Most changes of this persona pending at once; one more is refused (`PENDING_CAP`). Default: 50. */
  maxPending?: number;
  /** The workspace area of the older layout (lineage files per target), imported once into an empty journal. Default: none. */
  legacy?: SystemArea;
  /** Safe mode: `restore` brings nothing back, and nothing follows other processes. Default: false. */
  safe?: boolean;
  /** Whether to watch the store for other processes' writes. Default: true. */
  watch?: boolean;
  /** Where background failures (a refresh that failed) are told. Default: `console.warn`. */
  log?: (text: string) => void;
}

/** The change path with its own upkeep. */
export type ChangesService = ChangesApi & { dispose(): Promise<void> };

/** Creates the change path over `options.store`, reading (and repairing) the journal there. */
export async function createChanges(options: ChangesOptions): Promise<ChangesService> {
  const { bus, persona } = options;
  const log = options.log ?? ((text: string) => console.warn(text));
  const maxValueChars = options.maxTestValueChars ?? 4000;
  const maxPending = options.maxPending ?? 50;
  const store = new ChangeStore(options.store);
  const { records } = store;
  const kinds = new Map<ChangeKind, ChangeKindHandler>();
  const runs = new RunTracker(bus);
  const { policy, check: checkPolicy, automatic } = personaPolicy(persona);
  const queue = targetQueue();
  /** Runs `op` after every earlier operation on the same target in this process. */
  const serial = <T>(kind: ChangeKind, target: string, op: () => Promise<T>): Promise<T> => queue(`${kind}\u0000${target}`, op);
  const activeOf = (kind: ChangeKind, target: string) => records.activeOf(kind, target);

  const readContent = async (r: ChangeRecord): Promise<unknown> => {
    if (r.hash === null) return undefined;
    const v = await store.readVersion(r.hash);
    if (!v) throw new ArmatureError('VERSION_MISSING', `[changes] version ${r.version} of ${r.target} (${r.hash.slice(0, 12)}) is not in the store`, { hint: 'Propose it again.' });
    return v.content;
  };
  const live = new LiveTargets({ bus, activeOf, contentOf: readContent, handlerOf: (k) => kinds.get(k) });

  /** The following of other processes' decisions still under way (see `onFold` below). */
  let following: Promise<unknown> = Promise.resolve();
  /** Folds what was appended since the last read; its events and the following go out from `onFold`. */
  const sync = () => store.refresh();

  const handlerOf = (kind: ChangeKind): ChangeKindHandler => {
    const h = kinds.get(kind);
    if (h) return h;
    throw new ArmatureError('KIND_UNAVAILABLE', `[changes] no upgrade handles changes of kind ${quote(kind)} in persona ${persona.id}`, {
      hint: kind === 'tool' ? `Load MadeTools: add it to "upgrades" in modules/personas/${persona.id}.json.` : `Load the upgrade for ${kind} changes in this persona.`,
    });
  };

  const callerOf = (o: ChangeOptions): ChangeCaller => {
    const run = runs.runOf(o.caller, o.callId);
    return run ? { persona: persona.id, run, via: o.caller } : { persona: persona.id, via: o.caller };
  };

  /** Refuses an agent's change that could wait for a person while the persona has `maxPending` waiting. */
  const checkCap = (o: ChangeOptions) => {
    if (isPerson(o.caller)) return;
    const waiting = records.pendingOf(persona.id);
    if (waiting < maxPending) return;
    throw new ArmatureError('PENDING_CAP', `[changes] persona ${persona.id} has ${waiting} changes waiting for a person, its cap (${maxPending}): no new change until some are decided`, {
      hint: `A person lists them with "armature changes" and decides them: "armature reject ID..." (or approve). The cap is boot({ config: { Changes: { maxPending } } }).`,
      details: { pending: waiting, cap: maxPending },
    });
  };

  const { locked, write, bringIn, gateAndDecide, settle } = createDecisions({ store, live, bus, kinds, serial, readContent, automatic, callerOf, maxValueChars, log });

  const notFound = (id: string) =>
    new ArmatureError('CHANGE_NOT_FOUND', `[changes] no change ${quote(id)}`, {
      hint: (() => {
        const pending = records.list({ status: 'pending' }).map((r) => r.id);
        return pending.length ? `Pending changes: ${pending.slice(0, 20).join(', ')}${pending.length > 20 ? ` and ${pending.length - 20} more` : ''}.` : 'No change is pending: list them with armature changes.';
      })(),
    });

  const notPending = (id: string, r: ChangeRecord) => new ArmatureError('CHANGE_NOT_PENDING', `[changes] change ${id} is ${r.status}, not pending`, { hint: 'Only pending changes are approved or rejected.' });

  /** A record by id, after reading what other processes wrote. */
  const fresh = async (id: string): Promise<ChangeRecord> => {
    await sync();
    const r = records.get(id);
    if (!r) throw notFound(id);
    return r;
  };

  await openJournal(store, { bus, log });
  store.onFold = (transitions) => {
    const foreign = announce(bus, transitions, store.writer.instance, options.store.location);
    if (store.fold.problems.length) void store.recordProblems().catch((e) => log(`[changes] could not record what the journal's read skipped: ${describeError(e)}`));
    // Queued behind the operation that may be folding now (it holds the target's queue).
    const follows = foreign.map(({ kind, target }) => serial(kind, target, () => live.follow(kind, target)).catch((e) => log(`[changes] ${kind} ${target} could not follow the journal: ${describeError(e)}`)));
    if (follows.length) following = Promise.all([following, ...follows]);
  };
  if (options.legacy) await importLegacy(options.legacy, store);
  const watching = options.watch === false ? undefined : options.store.watch(() => void api.refresh().catch((e) => log(`[changes] reading the journal failed: ${describeError(e)}`)));

  const api: ChangesService = {
    registerKind(handler) {
      if (kinds.has(handler.kind)) throw new ArmatureError('DUPLICATE_KIND', `[changes] changes of kind ${handler.kind} are already handled`);
      kinds.set(handler.kind, handler);
      return toDisposable(() => kinds.get(handler.kind) === handler && kinds.delete(handler.kind));
    },

    async propose(request: ProposeRequest) {
      const h = handlerOf(request.kind);
      checkPolicy(request.kind, request.caller);
      const target = h.targetOf(request.content);
      await sync();
      checkCap(request);
      const r = await serial(h.kind, target, () => gateAndDecide(h, target, request.action, request.content, request));
      await settle(r);
      return r;
    },

    async rollback(kind, target, version, o) {
      const h = handlerOf(kind);
      checkPolicy(kind, o.caller);
      return serial(kind, target, async () => {
        await sync();
        checkCap(o);
        const all = records.history(kind, target);
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
      return serial(kind, target, () =>
        locked(kind, target, async () => {
          checkCap(o);
          const active = activeOf(kind, target);
          if (!active || active.hash === null) throw new ArmatureError('NOT_ACTIVE', `[changes] ${target} has no version in force`, { hint: 'Nothing to retire.' });
          const r: ChangeRecord = {
            id: records.newId(), kind, target, action: 'retire', version: null, hash: null, parent: active.version,
            status: 'pending', reason: o.reason ?? '', caller: callerOf(o), tests: [], at: Date.now(),
          };
          const { status: _s, tests: _t, ...proposed } = r;
          bus.emit('change:proposed', { change: structuredClone(proposed) });
          if (isPerson(o.caller)) return bringIn(h, r, undefined, o.caller, true);
          if (policy(kind) === 'auto') return bringIn(h, r, undefined, 'auto', true);
          await write({ t: 'new', record: r }, () => records.get(r.id)?.status === 'pending');
          return records.get(r.id)!;
        }),
      );
    },

    async approve(id, o) {
      if (!isPerson(o.caller)) throw refuseAgent('approve', o.caller);
      const first = await fresh(id);
      const h = handlerOf(first.kind);
      const done = await serial(first.kind, first.target, () =>
        locked(first.kind, first.target, async () => {
          const r = records.get(id)!;
          if (r.status !== 'pending') throw notPending(id, r);
          const waiting = records.unmet(r);
          if (waiting.length) {
            const described = waiting.map((w) => records.get(w)!).map((w) => `${w.id} (${w.kind} ${w.target}, ${w.status})`);
            throw new ArmatureError('REQUIREMENT_PENDING', `[changes] change ${id} builds on ${described.join(', ')}: approve ${waiting.length === 1 ? 'it' : 'them'} first`, {
              hint: `armature approve ${[...waiting, id].join(' ')}`,
            });
          }
          return bringIn(h, r, await readContent(r), o.caller, false);
        }),
      );
      await settle(done);
      return done;
    },

    async reject(id, o) {
      if (!isPerson(o.caller)) throw refuseAgent('reject', o.caller);
      const first = await fresh(id);
      const done = await serial(first.kind, first.target, () =>
        locked(first.kind, first.target, async () => {
          const r = records.get(id)!;
          if (r.status !== 'pending') throw notPending(id, r);
          await write({ t: 'set', id, from: 'pending', set: { status: 'rejected', decidedAt: Date.now(), outcome: `rejected by ${o.caller}${o.reason ? `: ${o.reason}` : ''}` }, at: Date.now() }, () => r.status === 'rejected');
          return r;
        }),
      );
      await settle(done);
      return done;
    },

    async revert(kind, target, why, onlyIf) {
      const h = handlerOf(kind);
      return serial(kind, target, () =>
        locked(kind, target, async () => {
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
            id: records.newId(), kind, target, action: 'rollback', version, hash, parent: active.version, status: 'pending',
            reason: why, caller: { persona: persona.id, via: 'system' }, tests: [], at: Date.now(),
          };
          const { status: _s, tests: _t, ...proposed } = r;
          bus.emit('change:proposed', { change: structuredClone(proposed) });
          const done = await bringIn(h, r, content, 'system', true, why);
          if (done.status === 'active' || hash === null) return done;
          // The earlier version would not come back: take the target out of service.
          const off: ChangeRecord = { ...r, id: records.newId(), version: null, hash: null, status: 'pending', outcome: undefined, decidedAt: undefined };
          return bringIn(h, off, undefined, 'system', true, why);
        }),
      );
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
      await sync();
      live.restoredKind(kind);
      const found: LoadFailure[] = [];
      const inForce = new Map<string, { r: ChangeRecord; content: unknown }>();
      for (const target of records.targetsOf(kind)) {
        const r = activeOf(kind, target);
        if (!r || r.hash === null) continue;
        try {
          inForce.set(target, { r, content: await readContent(r) });
        } catch (e) {
          found.push(live.fail(r, e));
        }
      }
      for (const target of dependencyOrder(inForce.keys(), (t) => h.dependenciesOf?.(inForce.get(t)!.content) ?? [])) {
        await serial(kind, target, async () => {
          // What is in force may have moved on since it was read: bring in what is in force now.
          const now = activeOf(kind, target);
          const { r, content } = now === inForce.get(target)!.r ? inForce.get(target)! : { r: now, content: now?.hash ? await readContent(now).catch(() => undefined) : undefined };
          if (!r || r.hash === null) return;
          try {
            await live.bringIn(h, r, content);
          } catch (e) {
            found.push(live.fail(r, e));
          }
        });
      }
      return found;
    },

    async refresh() {
      await sync();
      await following;
    },

    async countCall(id, outcome, window) {
      if (store.counts(id).calls >= window) return store.counts(id);
      await store.append({ t: 'call', id, ok: outcome.ok, window, ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message.slice(0, 500) } } : {}), at: Date.now() });
      await sync();
      return store.counts(id);
    },

    callCount: (id): CallCount => store.counts(id),

    repairs: () => store.repairs(),

    safe: options.safe ?? false,

    loadFailures: () => [...live.failures],

    async dispose() {
      watching?.dispose();
      runs.dispose();
    },
  };
  return api;
}
