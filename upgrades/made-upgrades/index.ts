import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import { describeError } from '../../src/kernel/errors.ts';
import type { ToolResult, ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { BlueprintRegistryApi } from '../blueprints/contract.ts';
import type { PersonaOverlayApi } from '../persona-overlay/contract.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import { MADE_UPGRADES_EVENTS } from './events.ts';
import { madeUpgradeHandlers } from './made-upgrades.ts';
import type { UpgradeStatus } from './status.ts';
import { UPGRADE_DATA_AREA } from './storage.ts';
import { HELD_AREA, HeldBack } from './held-back.ts';
import { createUpgradeKind, type LiveUpgradeInfo } from './upgrade-kind.ts';
import { fullToolName, partId } from './upgrade-spec.ts';

export type { LiveUpgradeInfo } from './upgrade-kind.ts';
export type { MadeUpgradeContent, UpgradeTestSpec } from './upgrade-spec.ts';
export type { UpgradeStatus } from './status.ts';
export type { UpgradeChangeAnswer } from './made-upgrades.ts';

/** The MadeUpgrades API: the agent-made upgrades in force, what their widgets show, and their buttons. */
export interface MadeUpgradesApi {
  /** Each upgrade in force: version, change, blueprint, whether it runs here, its tools and events. */
  live(): LiveUpgradeInfo[];
  /** What the widget of a running upgrade shows, or `undefined` when it does not run. */
  status(id: string): UpgradeStatus | undefined;
  /** A person pressed button `index` of its widget: calls that tool as `ui`. */
  press(id: string, index: number): Promise<ToolResult>;
  /**
   * What this system's agent-made upgrades hold now, to check nothing leaks: confined workers (under test too),
   * the running instances' bus subscriptions, and everything MadeUpgrades' bus scope holds
   * (subscriptions and declared events).
   */
  resources(): { workers: number; subscriptions: number; scope: number };
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    MadeUpgrades: MadeUpgradesApi;
  }
}

/** Its options' schema: boot checks `config.MadeUpgrades` against it (docs/configuration.md lists them). */
export { MadeUpgradesConfigSchema as configSchema } from './config.ts';

/** MadeUpgrades: agents build upgrades from their blueprints — gated by the blueprint's checklist, hot, reversible, confined. */
export const metadata: UpgradeMetadata = {
  id: 'MadeUpgrades',
  version: '1.0.0',
  description: 'Upgrades an agent builds from a blueprint it wrote: tested in their confined worker against the blueprint\'s checklist, versioned, swapped in hot, shown with a widget of their own.',
  dependencies: ['ToolRunner', 'Changes', 'Workspace', 'Blueprints'],
  optionalDependencies: ['PersonaOverlay'],
  blueprint: '0x000082',
  category: 'tools',
  widget: 'made-upgrades-widget',
  events: MADE_UPGRADES_EVENTS,
};

/** What starting one upgrade's worker may take beyond its own limits (the confined worker's start limit, and its dispose after a failed init). */
const START_ALLOWANCE_MS = 32_000;

/**
 * Options (`boot({ config: { MadeUpgrades: {...} } })`): `testTimeoutMs` (one test; default
 * 5000), `callTimeoutMs` (one real call; default 30000), `handlerTimeoutMs` (the handlers of one
 * event; default 5000), `disposeTimeoutMs` (default 2000), `drainTimeoutMs` (how long a replaced
 * version's calls in flight may finish; default `callTimeoutMs`), `eventsPerSecond` (events, and
 * status updates, each; default 50). How long an upgrade's top level and its init may take, each,
 * under test and in force, is the kernel's limit for its part: `boot({ initTimeouts: {
 * "upgrade:<id>": ms } })`, else `boot({ initTimeoutMs })` (default 2000).
 */
export const factory: UpgradeModule<MadeUpgradesApi>['factory'] = (deps, ctx) => {
  const callTimeoutMs = ctx.configNumber('callTimeoutMs', 30_000);
  const changes = deps.Changes as ChangesApi;
  const workspace = deps.Workspace as WorkspaceApi;
  const initTimeoutMs = (id: string) => ctx.initTimeoutMs(partId(id));
  const held = new HeldBack(workspace.area(HELD_AREA));
  const runner = deps.ToolRunner as ToolRunnerApi;
  const overlay = deps.PersonaOverlay as PersonaOverlayApi | undefined;
  const loaded = new Set<string>();
  for (const r of ctx.bus.history(['module:loaded', 'module:disposed', 'module:failed'])) if (!r.payload.parent) (r.type === 'module:loaded' ? loaded.add(r.payload.id) : loaded.delete(r.payload.id));
  ctx.bus.on('module:loaded', (p) => !p.parent && loaded.add(p.id));
  ctx.bus.on('module:failed', (p) => !p.parent && loaded.delete(p.id));
  ctx.bus.on('module:disposed', (p) => !p.parent && loaded.delete(p.id));
  const kind = createUpgradeKind({
    runner,
    changes,
    blueprints: deps.Blueprints as BlueprintRegistryApi,
    bus: ctx.bus,
    parts: ctx.parts,
    area: workspace.area(UPGRADE_DATA_AREA),
    personaUpgrades: () => (ctx.safe ? [] : (overlay?.upgrades() ?? [])),
    builtInLoaded: (id) => loaded.has(id) || id === metadata.id,
    network: ctx.persona.network ?? 'none',
    initTimeoutMs,
    held,
    limits: {
      testTimeoutMs: ctx.configNumber('testTimeoutMs', 5000),
      callTimeoutMs,
      handlerTimeoutMs: ctx.configNumber('handlerTimeoutMs', 5000),
      disposeTimeoutMs: ctx.configNumber('disposeTimeoutMs', 2000),
      drainTimeoutMs: ctx.configNumber('drainTimeoutMs', callTimeoutMs),
      rate: ctx.configNumber('eventsPerSecond', 50),
    },
    log: (text) => console.warn(text),
  });
  const registration = changes.registerKind(kind.handler);
  const overlaySubscription = overlay?.onChange(() => kind.reconcile());
  const runs = (id: string) => kind.live().some((u) => u.id === id && u.running);
  return {
    api: {
      live: () => kind.live(),
      status: (id) => kind.status(id),
      async press(id, index) {
        const b = kind.status(id)?.buttons[index];
        if (!b) return { ok: false, error: { code: 'NO_SUCH_BUTTON', message: `[made-upgrades] ${id} has no button ${index}` }, durationMs: 0 };
        return runner.executeTool(fullToolName(id, b.tool), b.args ?? {}, { caller: 'ui' });
      },
      resources: () => ({ workers: kind.workers(), subscriptions: kind.subscriptions(), scope: ctx.bus.subscriptionCount }),
    },
    tools: madeUpgradeHandlers({ changes, persona: ctx.persona, runs, retry: (id) => kind.retry(id) }),
    // Its init starts the upgrades in force, each within its own limits (held-back ones not at all):
    // its own limit is theirs added up.
    ...(ctx.safe ? {} : { initTimeoutMs: initBudget(changes, held, initTimeoutMs) }),
    // The versions in force come back at boot (not in safe mode); those the persona runs start once
    // every module has loaded. One that fails is reported and skipped; the boot goes on.
    init: async () => {
      for (const f of await changes.restore('upgrade')) {
        ctx.parts.failed(partId(f.change.target), { ...f.error, message: `version ${f.change.version} of ${f.change.target} could not be loaded and was skipped: ${describeError(f.error.message)}` }, 0);
      }
      ctx.bus.on('system:booted', () => void kind.reconcile());
    },
    dispose: async () => {
      overlaySubscription?.dispose();
      registration.dispose();
      await kind.dispose();
    },
  };
};

/** How long MadeUpgrades' init may take: each upgrade in force that is not held back, started within its limits; `undefined` (the boot's default) when there is none. */
function initBudget(changes: ChangesApi, held: HeldBack, initTimeoutMs: (id: string) => number): number | undefined {
  const starting = changes.list({ kind: 'upgrade', status: 'active' }).filter((r) => r.hash !== null && !held.get(r.hash));
  if (!starting.length) return undefined;
  return starting.reduce((ms, r) => ms + 2 * initTimeoutMs(r.target) + START_ALLOWANCE_MS, 0);
}
