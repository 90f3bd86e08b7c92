/**
 * The `upgrade` kind of change: how an agent-made upgrade is gated (`upgrade-gate.ts`), brought
 * into force, run, swapped hot and stopped. A version in force runs when the persona runs it (its
 * overlay's `add_upgrades`) and what it depends on runs. A new version starts in a worker of its
 * own before the old one goes: its tools, events and widget state take over in one turn, the old
 * one's calls in flight finish, its subscriptions and worker end; the upgrades that depend on it
 * are reloaded after it, in dependency order.
 */
import { dependencyOrder } from '../../src/kernel/boot/dependency-order.ts';
import { EVERY_TOOL, personaAllows } from '../../src/kernel/allow-list.ts';
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeKindHandler, ChangesApi, VersionInfo } from '../../src/contracts/change-contract.ts';
import { checkPayload, compileDeclarations } from '../../src/kernel/declared-events.ts';
import { ArmatureError, toErrorInfo } from '../../src/kernel/errors.ts';
import type { DeclaredEvents, EventScope } from '../../src/kernel/event-bus.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import { namespaceOfMadeUpgrade, namespaceOfTool } from '../../src/kernel/namespaces.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { ModuleParts } from '../../src/kernel/upgrade.ts';
import type { BlueprintRegistryApi } from '../blueprints/contract.ts';
import type { SystemArea } from '../workspace/contract.ts';
import { gateUpgrade } from './upgrade-gate.ts';
import { heldBackError, untilChanged, type HeldBack } from './held-back.ts';
import { TIMEOUT_CODES, UpgradeInstance, type InstanceLimits } from './upgrade-instance.ts';
import { areaStorage, memoryStorage } from './storage.ts';
import { checkUpgradeId, declarationsOf, MADE_UPGRADES_ID, partId, type MadeUpgradeContent } from './upgrade-spec.ts';

/** The widget every agent-made upgrade is shown with. */
export const MADE_UPGRADE_WIDGET = 'made-upgrade-widget';

/** Options of {@link createUpgradeKind}. */
export interface UpgradeKindOptions {
  runner: ToolRunnerApi;
  changes: ChangesApi;
  blueprints: Pick<BlueprintRegistryApi, 'candidate'>;
  /** MadeUpgrades' bus scope: declared events and subscriptions end with it. */
  bus: EventScope;
  parts: ModuleParts;
  /** The upgrades' storage area (`upgrade-data`). */
  area: SystemArea;
  /** The agent-made upgrades the persona runs. */
  personaUpgrades(): string[];
  /** Whether a built-in upgrade is loaded. */
  builtInLoaded(id: string): boolean;
  network: 'none' | string[];
  /** Limits of every instance; `initTimeoutMs` is each upgrade's own (below). */
  limits: Omit<InstanceLimits, 'initTimeoutMs'> & { testTimeoutMs: number };
  /** How long the top level and the init of upgrade `id` may take, each (the kernel's limit for its part). */
  initTimeoutMs(id: string): number;
  /** Versions held back after their code ran past a limit. */
  held: HeldBack;
  log(text: string): void;
}

/** A version running now. */
interface Running {
  content: MadeUpgradeContent;
  info: VersionInfo;
  instance: UpgradeInstance;
  tools: Disposable;
  /** Its declared events; replaced when they must be declared again (a failed swap took them over). */
  events: { current: DeclaredEvents };
}

/** What the API and widgets see of an agent-made upgrade. */
export interface LiveUpgradeInfo {
  id: string;
  version: number;
  change: string;
  blueprint: string;
  running: boolean;
  tools: string[];
  events: string[];
  dependencies: string[];
  title: string;
}

/** Creates the `upgrade` kind. */
export function createUpgradeKind(o: UpgradeKindOptions) {
  const inForce = new Map<string, { content: MadeUpgradeContent; info: VersionInfo }>();
  const running = new Map<string, Running>();
  // Starts and stops run one at a time: a swap, a reload of dependents and a persona change never interleave.
  let lock: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(op: () => Promise<T>): Promise<T> => {
    const next = lock.then(op, op);
    lock = next.catch(() => undefined);
    return next;
  };

  const agentDeps = (c: MadeUpgradeContent) => c.dependencies.filter((d) => !/^[A-Z]/.test(d));
  /** Why `id` cannot run now, or `undefined` when it can. */
  const blocked = (id: string): string | undefined => {
    const v = inForce.get(id);
    if (!v) return 'it has no version in force';
    if (!o.personaUpgrades().includes(id)) return 'the persona does not run it';
    for (const d of v.content.dependencies) {
      if (/^[A-Z]/.test(d) ? !o.builtInLoaded(d) : !running.has(d)) return `it depends on ${d}, which is not running`;
    }
    return undefined;
  };

  /** The in-force upgrades in dependency order (each after what it depends on). */
  const ordered = (): string[] => dependencyOrder([...inForce.keys()].sort(), (id) => agentDeps(inForce.get(id)!.content));
  /** Running upgrades that depend on `id`, directly or not, in dependency order. */
  const dependentsOf = (id: string): string[] => {
    const found = new Set<string>();
    for (const u of ordered()) if (running.has(u) && agentDeps(inForce.get(u)!.content).some((d) => d === id || found.has(d))) found.add(u);
    return [...found];
  };

  const callToolFor = (c: MadeUpgradeContent) => async (name: string, args: unknown) => {
    if (!personaAllows(c.persona, name)) {
      throw new ArmatureError('TOOL_NOT_ALLOWED', `[executeTool] persona ${c.persona.id}, which made ${c.id}, does not allow tool ${quote(name)}`, { hint: 'An upgrade can call only what the persona that made it may call.' });
    }
    const r = await o.runner.executeTool(name, args, { caller: `upgrade:${c.id}` });
    if (!r.ok) throw new ArmatureError(r.error.code, r.error.message, r.hint ? { hint: r.hint } : undefined);
    return r.value;
  };

  /** How a person gives upgrade `id`'s init more time, for messages. */
  const raiseHint = (id: string) => `to give its init more time than ${o.initTimeoutMs(id)} ms, boot with initTimeouts: { "${partId(id)}": MS } (armature --init-timeout MS for every upgrade)`;

  /** Holds back the version `info` of `id` after its code ran past a limit (`e`, one of {@link TIMEOUT_CODES}). */
  const holdBack = async (id: string, info: VersionInfo, e: ArmatureError): Promise<ArmatureError> => {
    try {
      await o.held.hold({ id, version: info.version, hash: info.hash, change: info.change, code: e.code, message: e.message, at: Date.now() });
    } catch (err) {
      o.log(`[made-upgrades] ${id} v${info.version} could not be held back: ${(err as Error).message}`);
    }
    return new ArmatureError(e.code, `${e.message}; ${untilChanged(id)}`, { hint: `${e.hint ?? ''} ${raiseHint(id)}.`.trim(), details: e.details });
  };

  /** Workers of this kind's instances alive now (the gate's and those in force). */
  const workers = { alive: 0 };
  const instanceOf = (c: MadeUpgradeContent, label: string, hash: string, emit: (n: string, p: unknown) => void, live: boolean) =>
    new UpgradeInstance({
      content: c,
      label,
      hash,
      callTool: callToolFor(c),
      emit,
      storage: live ? areaStorage(c.id, o.area) : memoryStorage(c.id),
      network: o.network,
      limits: { ...o.limits, initTimeoutMs: o.initTimeoutMs(c.id) },
      workers,
      ...(live
        ? {
            onStatus: (status) => running.get(c.id)?.instance.status === status && o.bus.emit('made-upgrades:status', { id: c.id, status }),
            onLog: (text) => o.log(text),
            onBroken: (e) =>
              void exclusive(async () => {
                const r = running.get(c.id);
                // A version already replaced has nothing left to stop.
                if (r?.info.hash !== hash) return;
                const why = TIMEOUT_CODES.has(e.code) ? await holdBack(c.id, r.info, e) : e;
                await stop(c.id, why.message);
              }),
          }
        : {}),
    });

  /** Registers the tools of `c`, each call going to `instance` (the one in force when the call starts). */
  const register = (c: MadeUpgradeContent, instance: UpgradeInstance) =>
    o.runner.registerTools(declarationsOf(c, o.limits.callTimeoutMs), (name, args, call) => instance.call(name.slice(name.indexOf('.') + 1), args, { signal: call.signal }));

  /**
   * Starts the version in force of `id` in a new worker and swaps it in for the running one, if
   * any. Throws when it cannot start (the running one stays) or is held back; a start whose
   * module or init runs past its limit holds the version back.
   */
  async function start(id: string): Promise<void> {
    const { content: c, info } = inForce.get(id)!;
    const held = o.held.get(info.hash);
    if (held && held.change === info.change) throw heldBackError(held, raiseHint(id));
    const t0 = performance.now();
    const previous = running.get(id);
    const events = { current: o.bus.declareEvents(id, c.events) };
    const instance = instanceOf(c, `v${info.version}`, info.hash, (n, p) => events.current.emit(n, p), true);
    const undo = async () => {
      events.current.dispose();
      await instance.stop();
      // The running version keeps its events: declare them again, as they were.
      if (previous) previous.events.current = o.bus.declareEvents(id, previous.content.events);
    };
    try {
      await instance.start();
      instance.listen(o.bus);
      await instance.init();
    } catch (e) {
      await undo();
      throw TIMEOUT_CODES.has((e as ArmatureError).code) ? await holdBack(id, info, e as ArmatureError) : e;
    }
    // Brought back by a change of its own (a rollback to the same hash): it starts, and is no longer held back.
    if (held) await o.held.release(info.hash);
    // The swap, in one turn: no call finds the tools missing; calls in flight finish on the old instance.
    previous?.tools.dispose();
    let tools: Disposable;
    try {
      tools = register(c, instance);
    } catch (e) {
      if (previous) previous.tools = register(previous.content, previous.instance);
      await undo();
      throw e;
    }
    running.set(id, { content: c, info, instance, tools, events });
    previous?.events.current.dispose();
    o.bus.emit('made-upgrades:status', { id, status: instance.status });
    o.parts.loaded(partId(id), { version: `v${info.version}`, durationMs: performance.now() - t0, widget: MADE_UPGRADE_WIDGET, category: c.widget?.category ?? 'tools', title: c.widget?.title ?? id });
    await previous?.instance.stop();
  }

  /** Stops `id` (and what depends on it, first); `why` reports it as failed instead of gone. */
  async function stop(id: string, why?: string): Promise<void> {
    for (const d of dependentsOf(id).reverse()) await stopOne(d, `it depends on ${id}, which stopped`);
    await stopOne(id, why);
  }

  async function stopOne(id: string, why?: string): Promise<void> {
    const r = running.get(id);
    if (!r) return;
    running.delete(id);
    r.tools.dispose();
    r.events.current.dispose();
    o.bus.emit('made-upgrades:status', { id, status: null });
    if (why) o.parts.failed(partId(id), { code: 'UPGRADE_STOPPED', message: `${id} v${r.info.version} stopped: ${why}` }, 0);
    else o.parts.disposed(partId(id));
    await r.instance.stop();
  }

  /** Starts what should run and stops what should not, in dependency order. Failures are reported as failed parts. */
  async function reconcile(): Promise<void> {
    for (const id of ordered().reverse()) if (running.has(id) && blocked(id)) await stopOne(id, blocked(id) === 'the persona does not run it' ? undefined : blocked(id));
    for (const id of ordered()) {
      if (running.has(id) || blocked(id)) continue;
      try {
        await start(id);
      } catch (e) {
        o.parts.failed(partId(id), toErrorInfo(e, 'UPGRADE_START_FAILED'), 0);
      }
    }
  }

  const handler: ChangeKindHandler<MadeUpgradeContent> = {
    kind: 'upgrade',

    targetOf(c) {
      const id = checkUpgradeId(c?.id);
      const ns = namespaceOfMadeUpgrade(id);
      const owner = o.runner.getToolDeclarations({ persona: EVERY_TOOL }).find((d) => d.module !== MADE_UPGRADES_ID && namespaceOfTool(d) === ns);
      if (owner || o.bus.isReservedOwner(id)) {
        throw new ArmatureError('UPGRADE_ID_TAKEN', `[made-upgrades] ${quote(id)} is taken by the system${owner ? ` (the tools of ${owner.module} use the namespace ${ns})` : ''}`, { hint: 'Choose another id, e.g. "my-notes-index".' });
      }
      return id;
    },

    gate: (_target, c, { hash }) =>
      gateUpgrade(c, hash, {
        blueprints: o.blueprints,
        builtInLoaded: o.builtInLoaded,
        madeUpgrades: () => [...new Set(o.changes.list({ kind: 'upgrade' }).filter((r) => r.hash !== null && (r.status === 'active' || r.status === 'pending')).map((r) => r.target))],
        agentUpgrade: (id) => {
          const r = o.changes.active('upgrade', id) ?? o.changes.list({ kind: 'upgrade', target: id, status: 'pending' })[0];
          const content = r?.hash ? (o.changes.content(r) as MadeUpgradeContent | undefined) : undefined;
          return r && content ? { status: r.status === 'pending' ? 'pending' : 'active', change: r.id, content, running: running.has(id) } : undefined;
        },
        instance: (c2, h) => {
          const declared = compileDeclarations(c2.id, c2.events, new Set());
          return instanceOf(c2, 'test', h, (name, payload) => {
            const d = declared.find((x) => x.name === name);
            if (!d) throw new ArmatureError('UNDECLARED_EVENT', `[events] ${c2.id} emitted ${quote(name)}, which it did not declare`, { hint: `Its events: ${declared.map((x) => x.name).join(', ') || 'none'}.` });
            checkPayload(d, payload);
          }, false);
        },
        testTimeoutMs: o.limits.testTimeoutMs,
      }),

    activate: (target, content, info) =>
      exclusive(async () => {
        const prior = inForce.get(target);
        inForce.set(target, { content, info });
        if (blocked(target)) {
          // In force, not running here (the persona does not run it yet): a running older version goes.
          if (running.has(target)) await stop(target);
          return;
        }
        try {
          await start(target);
        } catch (e) {
          if (prior) inForce.set(target, prior);
          else inForce.delete(target);
          if (!running.has(target)) o.parts.failed(partId(target), toErrorInfo(e, 'UPGRADE_START_FAILED'), 0);
          throw e;
        }
        // What depends on it runs against the new version: reload it, in dependency order.
        for (const d of dependentsOf(target)) {
          try {
            await start(d);
          } catch (e) {
            await stopOne(d, `reloading it after ${target} v${info.version} failed: ${(e as Error).message}`);
          }
        }
        await reconcile();
      }),

    deactivate: (target) =>
      exclusive(async () => {
        inForce.delete(target);
        await stop(target);
        await reconcile();
      }),

    present: (c) => ({
      code: c.code,
      language: 'javascript',
      details: { blueprint: c.blueprint, dependencies: c.dependencies, tools: c.tools.map((t) => t.name), events: c.events.map((e) => e.name), widget: c.widget, tests: c.tests, persona: c.persona.id },
    }),

    dependenciesOf: (c) => agentDeps(c),
  };

  return {
    handler,
    /** Starts and stops upgrades to match the persona and what runs. */
    reconcile: () => exclusive(reconcile),
    /**
     * Lets the version in force of `id` start again if it was held back, and starts it (where the
     * persona runs it). Throws `UPGRADE_NOT_IN_FORCE`, or what its start fails with (past its
     * limit again, it is held back again).
     */
    async retry(id: string): Promise<{ id: string; version: number; running: boolean; released: boolean }> {
      const r = o.changes.active('upgrade', id);
      const content = r?.hash ? (o.changes.content(r) as MadeUpgradeContent | undefined) : undefined;
      if (!r || r.hash === null || r.version === null || !content) {
        throw new ArmatureError('UPGRADE_NOT_IN_FORCE', `[made-upgrades] ${quote(id)} has no version in force to start`, { hint: 'upgrade_history shows its versions; rollback_upgrade brings one back.' });
      }
      const released = await o.held.release(r.hash);
      await handler.activate(id, content, { change: r.id, version: r.version, hash: r.hash, caller: r.caller });
      return { id, version: r.version, running: running.has(id), released };
    },
    live: (): LiveUpgradeInfo[] =>
      ordered().map((id) => {
        const { content: c, info } = inForce.get(id)!;
        return { id, version: info.version, change: info.change, blueprint: c.blueprint, running: running.has(id), tools: declarationsOf(c, 0).map((d) => d.name), events: c.events.map((e) => e.name), dependencies: c.dependencies, title: c.widget?.title ?? id };
      }),
    status: (id: string) => running.get(id)?.instance.status,
    /** Subscriptions the running instances hold (a leak check). */
    subscriptions: () => [...running.values()].reduce((n, r) => n + r.instance.subscriptions, 0),
    /** Confined workers of its instances alive now (the gate's and those in force). */
    workers: () => workers.alive,
    dispose: () =>
      exclusive(async () => {
        for (const id of ordered().reverse()) await stopOne(id);
        inForce.clear();
      }),
  };
}
