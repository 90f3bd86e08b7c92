import { timeoutProblem } from '../bounded.ts';
import { configNumber } from '../config-number.ts';
import { checkConfig } from '../config-schema.ts';
import type { Container } from '../container.ts';
import { dependencyOrder } from './dependency-order.ts';
import { startEarly, type EarlyStarts } from './early-start.ts';
import { initLimitOf, initLimits, withinInitLimit } from './init-limit.ts';
import { ArmatureError, ToolManifestMismatchError } from '../errors.ts';
import type { EventBus } from '../event-bus.ts';
import type { Disposable } from '../lifecycle.ts';
import type { Manifests } from '../manifests.ts';
import type { Persona, UpgradeEntry } from '../manifest-schemas.ts';
import { TOOL_RUNNER_ID, type ToolRunnerApi } from '../tool-contract.ts';
import type { EarlyStartModule, ModuleParts, UpgradeContext, UpgradeInstance, UpgradeMetadata, UpgradeModule } from '../upgrade.ts';
import type { Platform } from '../../platform/platform.ts';
import type { StatusSnapshot } from '../status-snapshot.ts';
import { StatusBoard } from './status-board.ts';
import { folderOf, widgetModuleOf, type ModuleReport } from './module-report.ts';

/**
 * Imports a module of an upgrade by its path in a `modules/upgrades.json`: its `entry`
 * (`upgrades/<folder>/index.ts`) or its `earlyStart` (`upgrades/<folder>/early-start.ts`). `base` is
 * set for an upgrade of a user's root: the URL its paths are relative to.
 */
export type UpgradeImporter = (path: string, base?: string) => Promise<UpgradeModule | EarlyStartModule>;

/**
 * Default importer: the package's own upgrades through one template-literal import per kind of
 * module, which Node/tsx and the browser resolve at run time and esbuild turns into a map of every
 * `upgrades/<folder>/index.ts` (and `early-start.ts`) when bundling; a root's upgrades by URL, as
 * the files they are (JavaScript; TypeScript only where a loader for it runs, such as tsx).
 */
export const importUpgrade: UpgradeImporter = async (path, base) => {
  if (base !== undefined) return importFromRoot(path, base);
  const [, folder, name] = /^upgrades\/([a-z0-9-]+)\/(index|early-start)\.ts$/.exec(path) ?? [];
  if (!folder) throw new ArmatureError('INVALID_ENTRY', `[import] ${JSON.stringify(path)} is not of the form "upgrades/<folder>/index.ts" (or "upgrades/<folder>/early-start.ts")`);
  try {
    if (name === 'early-start') return (await import(`../../../upgrades/${folder}/early-start.ts`)) as EarlyStartModule;
    return (await import(`../../../upgrades/${folder}/index.ts`)) as UpgradeModule;
  } catch (e) {
    throw notInBundle(e, path) ?? e;
  }
};

/** A module of a root's upgrade, by URL; TypeScript where nothing can load it is explained. */
async function importFromRoot(path: string, base: string): Promise<UpgradeModule | EarlyStartModule> {
  const url = new URL(path, base).href;
  try {
    return (await import(/* @vite-ignore */ url)) as UpgradeModule | EarlyStartModule;
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION' && path.endsWith('.ts')) {
      throw new ArmatureError('TYPESCRIPT_UNLOADABLE', `[import] ${url} is TypeScript, which this Node cannot import as is`, {
        cause: e,
        hint: `Write it in JavaScript (${path.replace(/\.ts$/, '.js')}, with JSDoc types if you like), compile it, or run node with a TypeScript loader (node --import tsx ...).`,
      });
    }
    throw e;
  }
}

/**
 * The error of a bundle (the dashboard's, esbuild's map of `upgrades/<folder>/...` imports) that
 * was built before the upgrade at `path` existed — esbuild says only "Module not found in bundle" —
 * said with what to do; `undefined` for any other error.
 */
export function notInBundle(error: unknown, path: string): ArmatureError | undefined {
  if (!/Module not found in bundle/.test((error as Error)?.message ?? '')) return undefined;
  return new ArmatureError(
    'NOT_IN_BUNDLE',
    `[import] ${path} is not in this page's bundle: the bundle was built before the upgrade was added. Reload the page: npm start (armature start in a checkout) rebuilds the dashboard when a file changes, a new upgrade included. A dashboard served from an installed package is prebuilt: serve a checkout with npm start, or bundle your own page again.`,
    { details: { path, error: (error as Error).message } },
  );
}

export type { ModuleReport } from './module-report.ts';

/** Options of {@link loadPersona}. */
export interface LoadOptions {
  manifests: Manifests;
  persona: Persona;
  bus: EventBus;
  platform: Platform;
  /** Container the persona's scope is created under. */
  container: Container;
  /** Per-upgrade options by upgrade id. Default: `{}`. */
  config?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Default: {@link importUpgrade}. */
  importer?: UpgradeImporter;
  /** The persona's early starts when the caller began them ({@link startPersonaEarly}). Default: begun here. */
  early?: Promise<EarlyStarts>;
  /** Safe mode, handed to every upgrade (see `UpgradeContext.safe`). Default: false. */
  safe?: boolean;
  /** This process's id, handed to every upgrade (see `UpgradeContext.processId`). Default: none. */
  processId?: string;
  /** How long each upgrade's (and part's) `init` may take, in ms (`init-limit.ts`). Default: 2000. */
  initTimeoutMs?: number;
  /** The same for one upgrade or part, by id: `{ McpClient: 60000, "upgrade:notes-index": 5000 }`. Default: none. */
  initTimeouts?: Readonly<Record<string, number>>;
}

/** The persona scope the loader built. */
export interface LoadedPersona {
  container: Container;
  /** Upgrade reports in load order, each followed by its parts; kept current as parts change. */
  reports: ModuleReport[];
  metadata: Map<string, UpgradeMetadata>;
  /** The current status snapshot of a module or part (see `UpgradeInstance.status`), or undefined. */
  status(id: string): StatusSnapshot | undefined;
  /** The modules' snapshots: stops what is still to be published. */
  statuses: StatusBoard;
}

/**
 * Boots a persona's upgrades into a child container: orders them by dependencies, calls their
 * early starts, imports each entry, checks its metadata against `modules/upgrades.json`,
 * registers it, then initializes every module, each init within its limit. A failing module (an
 * init past its limit included) is reported (`module:failed`) and its dependents fail naming it;
 * unrelated modules still load. Throws `INVALID_CONFIG` for unusable init limits.
 */
export async function loadPersona(options: LoadOptions): Promise<LoadedPersona> {
  const { manifests, persona, bus, platform } = options;
  const limits = initLimits(options.initTimeoutMs, options.initTimeouts);
  const importer = options.importer ?? importUpgrade;
  const reports = new Map<string, ModuleReport>();
  const metadata = new Map<string, UpgradeMetadata>();
  const importMs = new Map<string, number>();
  /** The status sources of the loaded upgrades, by id. */
  const instances = new Map<string, Pick<UpgradeInstance, 'status' | 'partStatus'>>();
  /** The upgrade running each part that reported a status, by part id. */
  const owners = new Map<string, string>();
  const statuses = new StatusBoard({
    publish: (id, status) => bus.emit('module:status', { id, status }),
    sourceOf(id) {
      const own = instances.get(id);
      if (own) return own.status ? () => own.status!() : undefined;
      const owner = instances.get(owners.get(id) ?? '');
      return owner?.partStatus ? () => owner.partStatus!(id) : undefined;
    },
  });

  /** The tools the manifests declare for module `id`. */
  const toolsOf = (id: string) => [...manifests.tools.values()].filter((t) => t.module === id);

  const report = (id: string, patch: Partial<ModuleReport>) => {
    const entry = manifests.upgrades.get(id)!;
    const base: ModuleReport = reports.get(id) ?? {
      id,
      state: 'failed',
      durationMs: 0,
      category: entry.category,
      widget: metadata.get(id)?.widget ?? null,
      blueprint: entry.blueprint,
      folder: folderOf(entry.entry),
      ...widgetModuleOf(entry),
    };
    reports.set(id, { ...base, ...patch });
  };

  const container = options.container.createChild({
    onLoading: (id) => bus.emit('module:loading', { id }),
    onLoaded: (id, ms) => {
      const durationMs = ms + (importMs.get(id) ?? 0);
      const version = metadata.get(id)?.version ?? '0.0.0';
      report(id, { state: 'loaded', durationMs, version, widget: metadata.get(id)?.widget ?? null });
      bus.emit('module:loaded', { id, version, durationMs });
    },
    onFailed: (id, error, ms, rootCause) => {
      const durationMs = ms + (importMs.get(id) ?? 0);
      report(id, { state: 'failed', durationMs, error, rootCause, version: metadata.get(id)?.version });
      const tools = toolsOf(id).map((t) => t.name);
      bus.emit('module:failed', { id, error, durationMs, ...(rootCause ? { rootCause } : {}), ...(tools.length ? { tools } : {}) });
    },
    onDisposed: (id) => bus.emit('module:disposed', { id }),
  });

  // Parts go right after their upgrade. Until loading ends they wait in `parts`; after it,
  // `published` is the array the caller holds and changes land there in place.
  const parts: ModuleReport[] = [];
  let published: ModuleReport[] | undefined;
  const partsOf = (parent: string): ModuleParts => {
    const entry = manifests.upgrades.get(parent)!;
    const upsert = (id: string, patch: Partial<ModuleReport>) => {
      owners.set(id, parent);
      let r = parts.find((p) => p.id === id);
      if (!r) {
        r = { id, parent, state: 'failed', durationMs: 0, category: entry.category, widget: null, blueprint: entry.blueprint, folder: folderOf(entry.entry), ...widgetModuleOf(entry) };
        parts.push(r);
        if (published) {
          const at = published.findLastIndex((m) => m.id === parent || m.parent === parent);
          published.splice(at + 1, 0, r);
        }
      }
      Object.assign(r, patch);
      if (patch.state === 'loaded') {
        delete r.error;
        delete r.rootCause;
      }
    };
    return {
      loading: (id) => {
        upsert(id, {});
        bus.emit('module:loading', { id, parent });
      },
      loaded: (id, info) => {
        const { version, durationMs, widget, category, title } = info;
        upsert(id, { state: 'loaded', version, durationMs, widget: widget ?? null, ...(category ? { category } : {}), ...(title ? { title } : {}) });
        bus.emit('module:loaded', { id, version, durationMs, parent });
      },
      failed: (id, error, durationMs) => {
        upsert(id, { state: 'failed', error, durationMs });
        bus.emit('module:failed', { id, error, durationMs, parent });
      },
      disposed: (id) => {
        const i = parts.findIndex((p) => p.id === id);
        if (i < 0) return;
        const [r] = parts.splice(i, 1);
        statuses.forget(id);
        if (published && published.indexOf(r!) >= 0) published.splice(published.indexOf(r!), 1);
        bus.emit('module:disposed', { id, parent });
      },
    };
  };

  const order = orderByDependencies(persona.upgrades, manifests);
  // Before the entries: an early start's first steps would otherwise wait behind their imports.
  const early = await (options.early ?? startEarly(order, { manifests, persona, platform, bus, config: options.config, importer }));
  // Imports run in parallel: they are independent, and in the browser each is a network fetch.
  const modules = await Promise.all(
    order.map(async (id) => {
      const entry = manifests.upgrades.get(id)!;
      const t0 = now();
      try {
        const mod = (await importer(entry.entry, entry.base)) as UpgradeModule;
        checkMetadata(entry, mod);
        metadata.set(id, mod.metadata);
        return { entry, mod };
      } catch (error) {
        return { entry, error };
      } finally {
        importMs.set(id, now() - t0);
      }
    }),
  );

  for (const m of modules) {
    const { entry } = m;
    const declared = toolsOf(entry.id);
    container.register({
      id: entry.id,
      dependencies: entry.dependencies,
      optionalDependencies: entry.optionalDependencies,
      factory: async (deps) => {
        if ('error' in m) throw m.error;
        const config = options.config?.[entry.id] ?? {};
        if (m.mod.configSchema) checkConfig(entry.id, m.mod.configSchema, config);
        const scope = bus.scope(entry.id);
        const instance = await m.mod.factory(deps, {
          bus: scope,
          persona,
          platform,
          tools: declared,
          config,
          configNumber: ((key: string, fallback?: number) => configNumber(config, entry.id, key, fallback)) as UpgradeContext['configNumber'],
          parts: partsOf(entry.id),
          initTimeoutMs: (part) => initLimitOf(limits, part),
          safe: options.safe ?? false,
          ...(options.processId === undefined ? {} : { processId: options.processId }),
          statusChanged: (part) => {
            if (part !== undefined) owners.set(part, entry.id);
            statuses.changed(part ?? entry.id);
          },
        });
        const implemented = Object.keys(instance.tools ?? {});
        const declaredOnly = declared.map((t) => t.name).filter((n) => !implemented.includes(n));
        const implementedOnly = implemented.filter((n) => !declared.some((t) => t.name === n));
        if (declaredOnly.length || implementedOnly.length) {
          scope.dispose();
          await instance.dispose?.();
          throw new ToolManifestMismatchError(entry.id, declaredOnly, implementedOnly);
        }
        const asked = instance.initTimeoutMs;
        const badLimit = asked === undefined ? undefined : timeoutProblem(asked, 'initTimeoutMs');
        if (badLimit) {
          scope.dispose();
          await instance.dispose?.();
          throw new ArmatureError('INVALID_UPGRADE', `[init] ${entry.id} asks for its init: ${badLimit}`);
        }
        let registration: Disposable | undefined;
        instances.set(entry.id, instance);
        return {
          api: instance.api,
          init: async () => {
            // Its tools and its dependents wait for init: past its limit neither comes.
            if (instance.init) await withinInitLimit(entry.id, initLimitOf(limits, entry.id, asked), () => instance.init!());
            if (implemented.length) {
              const runner = deps[TOOL_RUNNER_ID] as ToolRunnerApi | undefined;
              if (!runner)
                throw new ArmatureError(
                  'TOOL_RUNNER_MISSING',
                  `[tools] ${entry.id} implements tools (${implemented.join(', ')}) but does not depend on ${TOOL_RUNNER_ID}: add it to its dependencies in modules/upgrades.json and its metadata`,
                );
              const handlers = instance.tools!;
              registration = runner.registerTools(declared, (name, args, call) => handlers[name]!(args, call));
            }
          },
          dispose: async () => {
            registration?.dispose();
            instances.delete(entry.id);
            statuses.forget(entry.id);
            for (const [part, owner] of owners) if (owner === entry.id) statuses.forget(part);
            try {
              await instance.dispose?.();
            } finally {
              scope.dispose();
              early.end(entry.id);
            }
          },
        };
      },
    });
  }

  // In dependency order, so each module's wait on its dependencies is already over and its
  // reported time is its own.
  for (const id of order) {
    try {
      await container.resolve(id);
    } catch {
      // Reported through onFailed; unrelated modules keep loading. Nothing will take over what
      // its early start began.
      early.end(id);
    }
  }
  published = order.flatMap((id) => [reports.get(id)!, ...parts.filter((p) => p.parent === id)]);
  return { container, reports: published, metadata, status: (id) => statuses.read(id), statuses };
}

/**
 * Begins the early starts of `o.persona`'s upgrades ahead of {@link loadPersona} (pass the result
 * as its `early`), so that a boot can start them before its own set-up.
 */
export function startPersonaEarly(o: Pick<LoadOptions, 'manifests' | 'persona' | 'platform' | 'bus' | 'config' | 'importer'>): Promise<EarlyStarts> {
  const { manifests, persona, platform, bus, config } = o;
  return startEarly(orderByDependencies(persona.upgrades, manifests), { manifests, persona, platform, bus, config, importer: o.importer ?? importUpgrade });
}

/** Persona upgrades ordered so that dependencies come first; ties keep the persona's order. */
export function orderByDependencies(ids: readonly string[], manifests: Manifests): string[] {
  // A cycle is left for the container to report with its path.
  return dependencyOrder(ids, (id) => {
    const entry = manifests.upgrades.get(id)!;
    return [...entry.dependencies, ...entry.optionalDependencies];
  });
}

function checkMetadata(entry: UpgradeEntry, mod: UpgradeModule): void {
  const where = entry.base === undefined ? entry.entry : new URL(entry.entry, entry.base).href;
  if (!mod || typeof mod !== 'object' || !mod.metadata || typeof mod.factory !== 'function') {
    throw new ArmatureError('INVALID_UPGRADE', `[import] ${where} must export "metadata" and "factory(deps, context)"`);
  }
  const m = mod.metadata;
  const problems: string[] = [];
  if (m.id !== entry.id) problems.push(`id is ${JSON.stringify(m.id)} in ${where} but ${JSON.stringify(entry.id)} in modules/upgrades.json`);
  const same = (a: readonly string[] = [], b: readonly string[] = []) => [...a].sort().join() === [...b].sort().join();
  if (!same(m.dependencies, entry.dependencies))
    problems.push(`dependencies are [${m.dependencies.join(', ')}] in ${where} but [${entry.dependencies.join(', ')}] in modules/upgrades.json`);
  if (!same(m.optionalDependencies, entry.optionalDependencies))
    problems.push(
      `optionalDependencies are [${(m.optionalDependencies ?? []).join(', ')}] in ${where} but [${entry.optionalDependencies.join(', ')}] in modules/upgrades.json`,
    );
  if (m.blueprint !== entry.blueprint) problems.push(`blueprint is ${m.blueprint} in ${where} but ${entry.blueprint} in modules/upgrades.json`);
  if (m.category !== entry.category) problems.push(`category is ${m.category} in ${where} but ${entry.category} in modules/upgrades.json`);
  if (!same(m.events, entry.events)) problems.push(`events are [${(m.events ?? []).join(', ')}] in ${where} but [${entry.events.join(', ')}] in modules/upgrades.json`);
  if (problems.length) throw new ArmatureError('METADATA_MISMATCH', `[import] ${entry.id}: ${problems.join('; ')}`);
}

/** `tool-runner` of `upgrades/tool-runner/index.ts`. */

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

