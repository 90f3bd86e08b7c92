import { Container } from '../container.ts';
import { ArmatureError } from '../errors.ts';
import { createEventBus, type EventBus } from '../event-bus.ts';
import { loadPersona, startPersonaEarly, type ModuleReport, type UpgradeImporter } from './loader.ts';
import { findPersona, readManifests, reservedEventPrefixes, type Manifests } from '../manifests.ts';
import type { Persona } from '../manifest-schemas.ts';
import { TOOL_RUNNER_ID, type ToolRunnerApi } from '../tool-contract.ts';
import { defaultPlatform } from '../../platform/default/default-platform.ts';
import type { Platform } from '../../platform/platform.ts';
import type { ProcessCommand, ProcessInfo } from '../journal/journal-layout.ts';
import type { StatusSnapshot } from '../status-snapshot.ts';
import type { ArmatureServices, ServiceId } from '../services.ts';
import { checkConfigIds, type ArmatureConfig, type BootConfig } from '../config-schema.ts';

/** Options of {@link boot}. */
export interface BootOptions {
  /** Persona id (`modules/personas/<id>.json`). Default: `default`. */
  persona?: string;
  /** Node: where persistent data lives. Default: `.armature` in the current directory. */
  dataDir?: string;
  /**
   * Node: a folder of your own, read beside the package's: its `modules/upgrades.json`,
   * `modules/tools-read.json`, `modules/tools-write.json`, `modules/personas/*.json`,
   * `blueprints/*.md` and the `upgrades/<folder>/` they name (`armature init DIR` writes one). Its
   * ids must differ from the package's. In a browser the server decides (`startServer({ root })`).
   * Ignored when `platform` is given. Default: none.
   */
  root?: string;
  /** Platform adapters. Default: detected (Node files, or browser IndexedDB + server snapshot). */
  platform?: Platform;
  /**
   * Per-upgrade options by upgrade id, handed to each factory as `context.config`, typed per
   * upgrade ({@link ArmatureConfig}) and checked at boot against its schema: an id no manifest
   * registers rejects the boot, an unknown option or a value an upgrade cannot take fails that
   * upgrade (`INVALID_CONFIG`, naming the key and what it takes). docs/configuration.md lists them.
   * Default: `{}`.
   */
  config?: BootConfig;
  /** How many recent events the bus keeps. Default: 500. */
  historySize?: number;
  /** The bus to use (e.g. one a page created before booting). Default: a new one. */
  bus?: EventBus;
  /** Default: the loader's template-literal importer. */
  importer?: UpgradeImporter;
  /**
   * Safe mode: boot only what the persona files in `modules/` name — no agent-made tool, upgrade
   * or persona overlay is brought back into force — so a person can review and undo agent-made
   * changes (`armature boot --safe`, the dashboard's `?safe`). Default: false.
   */
  safe?: boolean;
  /**
   * Node, with a data folder: this process keeps a journal of its events there, which a dashboard
   * on the same folder (`armature start`) shows live, and answers a dashboard's request to stop a
   * run (see `src/kernel/journal/`). `command` says what the process runs (the CLI's command).
   * `false`: no journal. Default: `{ command: 'library' }`.
   */
  journal?: false | { command?: ProcessCommand };
  /**
   * The id this process goes by among the processes on its data folder (the dashboard's Processes
   * card): upgrades record it in what other processes read — a run's transcript, a change's
   * caller — so a person can tell which process did what. Default: the id of this process's
   * journal (`process.id`) when it keeps one, else none.
   */
  processId?: string;
  /**
   * How long each upgrade's `init` may take, in ms — built-in and agent-made alike: past it the
   * upgrade is marked failed (`INIT_TIMEOUT`, naming the limit and how to raise it) and the boot
   * goes on. An upgrade whose init waits on work with limits of its own (the McpClient's servers)
   * asks for more itself. Default: 2000.
   */
  initTimeoutMs?: number;
  /** The same for one upgrade, by id (`McpClient`, or an agent-made one's part, `upgrade:notes-index`); wins over what it asks. Default: none. */
  initTimeouts?: Readonly<Record<string, number>>;
}

/** A booted persona. */
export interface ArmatureSystem {
  /**
   * The booted persona, as in force: its file's fields, with an agent's persona overlay (if any,
   * and not in safe mode) applied to `tools` and `denyTools`. `manifests.personas` keeps the file's.
   */
  persona: Persona;
  /** Whether it was booted in safe mode. */
  safe: boolean;
  /** This process as dashboards on its data folder see it, when it keeps a journal there (see `BootOptions.journal`). */
  process?: ProcessInfo;
  /** Every manifest, validated. */
  manifests: Manifests;
  /** The system's event bus. */
  bus: EventBus;
  /** The platform adapters in use. */
  platform: Platform;
  /**
   * One report per persona upgrade, in load order, each followed by the parts it runs (reports
   * with `parent`, e.g. the McpClient's servers). Kept current: a part that fails or comes back
   * after boot changes its report in place.
   */
  modules: ModuleReport[];
  /** The ToolRunner API (calls fail with `TOOL_RUNNER_UNAVAILABLE` if it did not load). */
  tools: ToolRunnerApi;
  /**
   * Resolves a loaded module's API by id: typed for the ids of {@link ArmatureServices}
   * (`resolve('Workspace')` is a `WorkspaceApi`), `unknown` (or the type you name) for others.
   * Rejects when the module is not loaded.
   */
  resolve<K extends ServiceId>(id: K): Promise<ArmatureServices[K]>;
  resolve<T = unknown>(id: string): Promise<T>;
  /**
   * The current status snapshot of a module, or of a part with a card of its own (an agent-made
   * upgrade's `upgrade:<id>`): what its card shows, as plain data (`module:status` carries each
   * change). Undefined for a module that reports none or is not loaded.
   */
  status(id: string): StatusSnapshot | undefined;
  /** Disposes every module, dependents first. */
  dispose(): Promise<void>;
  /** The same as `dispose()`, so `await using system = await boot()` disposes it at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** This process's journal on the data folder (see `BootOptions.journal`), or undefined without one. */
async function openProcessJournal(
  platform: Platform,
  options: BootOptions,
  persona: string,
  bus: EventBus,
  host: () => { tools: ToolRunnerApi; resolve(id: string): Promise<unknown> } | undefined,
) {
  if (platform.dataDir === undefined || options.journal === false) return undefined;
  return (await import('../journal/attach.ts')).startProcessJournal({
    dataDir: platform.dataDir,
    command: options.journal?.command ?? 'library',
    persona,
    bus,
    host: { tools: () => host()?.tools, resolve: (id) => host()?.resolve(id) ?? Promise.reject(new Error('the system is still booting')) },
  });
}

/**
 * Boots a persona: reads and validates the manifests, loads its upgrades into a persona scope,
 * and resolves to the running system. Rejects only when the manifests are invalid, the persona
 * does not exist or the init limits are unusable (`INVALID_CONFIG`); module failures are reported
 * in `modules` and as `module:failed` events.
 */
export async function boot(options: BootOptions = {}): Promise<ArmatureSystem> {
  const t0 = performance.now();
  const platform = options.platform ?? (await defaultPlatform({ dataDir: options.dataDir, root: options.root }));
  const bus = options.bus ?? createEventBus({ historySize: options.historySize });
  if (options.bus && options.historySize !== undefined) bus.setHistorySize(options.historySize);
  const manifests = await readManifests(platform.project);
  // A copy: an overlay changes the persona in force, never the file's as read.
  const persona = structuredClone(findPersona(manifests, options.persona ?? 'default'));
  const config = (options.config ?? {}) as Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  checkConfigIds(config, manifests.upgrades.keys());
  bus.reserveEventPrefixes(reservedEventPrefixes(manifests));
  const safe = options.safe ?? false;
  const root = new Container();
  // The confined Python child of the runtime's early start is the longest part of a first run:
  // it begins before the journal and the telemetry open (the journal still gets the events since,
  // from the bus's history).
  const early = startPersonaEarly({ manifests, persona, platform, bus, config, importer: options.importer });
  // Started before the upgrades load, so that their loading is in the journal too.
  let host: { tools: ToolRunnerApi; resolve(id: string): Promise<unknown> } | undefined;
  let journal: Awaited<ReturnType<typeof openProcessJournal>>;
  let telemetry: Awaited<ReturnType<typeof startTelemetryIfConfigured>>;
  let loaded: Awaited<ReturnType<typeof loadPersona>>;
  try {
    journal = await openProcessJournal(platform, options, persona.id, bus, () => host);
    // The journal starts before the upgrades load, so its id is what they record as this process.
    const processId = options.processId ?? journal?.info.id;
    telemetry = await startTelemetryIfConfigured(platform, bus, persona.id);
    loaded = await loadPersona({
      manifests,
      persona,
      bus,
      platform,
      container: root,
      config,
      importer: options.importer,
      early,
      safe,
      ...(processId === undefined ? {} : { processId }),
      initTimeoutMs: options.initTimeoutMs,
      initTimeouts: options.initTimeouts,
    });
  } catch (e) {
    // Nothing will take over what the early starts began.
    void early.then((s) => s.endAll());
    throw e;
  }
  const runnerLoaded = loaded.reports.some((r) => r.id === TOOL_RUNNER_ID && r.state === 'loaded');
  const tools = runnerLoaded ? await loaded.container.resolve<ToolRunnerApi>(TOOL_RUNNER_ID) : unavailableRunner(persona, loaded.reports);
  host = { tools, resolve: (id) => loaded.container.resolve(id) };
  bus.emit('system:booted', {
    persona: persona.id,
    loaded: loaded.reports.filter((r) => r.state === 'loaded').map((r) => r.id),
    failed: loaded.reports.filter((r) => r.state === 'failed').map((r) => r.id),
    durationMs: performance.now() - t0,
  });
  let disposed: Promise<void> | undefined;
  // The journal closes last: the modules' disposal is in it, then the process's end; the
  // telemetry sends what is left.
  const end = async () => {
    loaded.statuses.dispose();
    journal?.dispose();
    await telemetry?.dispose().catch(() => undefined);
  };
  const dispose = () =>
    (disposed ??= root.dispose().then(end, async (e: unknown) => {
      await end();
      throw e;
    }));
  return {
    persona,
    safe,
    ...(journal ? { process: journal.info } : {}),
    manifests,
    bus,
    platform,
    modules: loaded.reports,
    tools,
    resolve: ((id: string) => loaded.container.resolve(id)) as ArmatureSystem['resolve'],
    status: (id) => loaded.status(id),
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/**
 * Node, with `OTEL_EXPORTER_OTLP_ENDPOINT` set: spans of agent runs, model calls, tool calls and
 * Python runs go to it (`src/kernel/telemetry/otel.ts`). When the OpenTelemetry packages are
 * missing the boot goes on without them, saying which to install.
 */
async function startTelemetryIfConfigured(platform: Platform, bus: EventBus, persona: string) {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  if (platform.kind !== 'node' || !env || !(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return undefined;
  try {
    return await (await import('../telemetry/otel.ts')).startTelemetry({ bus, persona, env });
  } catch (e) {
    console.warn(`armature: ${(e as Error).message}${(e as ArmatureError).hint ? `\n${(e as ArmatureError).hint}` : ''}`);
    return undefined;
  }
}

function unavailableRunner(persona: Persona, reports: ModuleReport[]): ToolRunnerApi {
  const report = reports.find((r) => r.id === TOOL_RUNNER_ID);
  const message = report
    ? `[tools] ${TOOL_RUNNER_ID} failed to load: ${report.error?.message}`
    : `[tools] persona ${persona.id} does not load ${TOOL_RUNNER_ID}: add it to modules/personas/${persona.id}.json`;
  return {
    registerTools() {
      throw new ArmatureError('TOOL_RUNNER_UNAVAILABLE', message);
    },
    async executeTool() {
      return { ok: false as const, error: { code: 'TOOL_RUNNER_UNAVAILABLE', message }, durationMs: 0 };
    },
    getToolDeclarations: () => [],
    hasTool: () => false,
    getToolDeclaration: () => undefined,
    getToolInstances: () => [],
    getStats: () => [],
  };
}
