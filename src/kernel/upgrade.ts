import type { EventScope } from './event-bus.ts';
import type { ModuleInstance } from './container.ts';
import type { Persona, ToolDeclaration } from './manifest-schemas.ts';
import type { Platform } from '../platform/platform.ts';
import type { ArmatureEventType, ToolCaller } from './events.ts';
import type { ErrorInfo } from './errors.ts';
import type { ConfigSchema } from './config-schema.ts';

/** Categories group widgets on the dashboard. */
export type UpgradeCategory = 'agent' | 'core' | 'runtime' | 'tools' | 'storage' | 'knowledge';

/** What an upgrade module says about itself; must agree with its entry in `modules/upgrades.json`. */
export interface UpgradeMetadata {
  /** Unique id, PascalCase, e.g. `ToolRunner`. */
  id: string;
  /** Semver of the upgrade. */
  version: string;
  /** One sentence on what it does. */
  description: string;
  /** Ids of upgrades it needs. */
  dependencies: readonly string[];
  /** Ids of upgrades it uses when they are loaded. Default: none. */
  optionalDependencies?: readonly string[];
  /** Id of the blueprint it is built from, e.g. `0x000031`. */
  blueprint: string;
  /** Dashboard category. */
  category: UpgradeCategory;
  /** Custom element tag of its widget, or `null` for none. */
  widget: string | null;
  /**
   * Events it adds to the typed map (module augmentation of `ArmatureEvents` in its folder); must
   * agree with `events` in `modules/upgrades.json`. Default: none.
   */
  events?: readonly ArmatureEventType[];
}

/** Context of one tool call, handed to the implementing handler. */
export interface ToolCallContext {
  /** Unique id of this call. */
  callId: string;
  /** Who asked. */
  caller: ToolCaller;
  /** Aborted when the call times out; long handlers should stop early. */
  signal: AbortSignal;
  /** The caller's session (`ExecuteOptions.session`), when it gave one. */
  session?: string;
}

/** Implementation of one tool; args are already validated against the tool's input schema. */
export type ToolHandler = (args: Record<string, unknown>, call: ToolCallContext) => unknown | Promise<unknown>;

/**
 * Reports the parts an upgrade runs itself (an MCP server of the McpClient) as modules of their
 * own: each gets a report with `parent` after its upgrade's in `boot().modules` (so `armature
 * boot` and the dashboard show it) and the `module:*` events with `parent`. A part's state may
 * change any time (a server dies, is restarted).
 */
export interface ModuleParts {
  loading(id: string): void;
  /**
   * The part runs. `widget` names the custom element that shows it on the dashboard (defined by
   * the upgrade's `widget.ts`, handed the upgrade's API); `category` and `title` place and name its
   * card. Default: no widget of its own (it shows in its upgrade's), the upgrade's category.
   */
  loaded(id: string, info: { version: string; durationMs: number; widget?: string; category?: UpgradeCategory; title?: string }): void;
  failed(id: string, error: ErrorInfo, durationMs: number): void;
  /** The part is gone: its report is removed. */
  disposed(id: string): void;
}

/** What an upgrade's factory gets besides its dependencies. */
export interface UpgradeContext {
  /** The bus, scoped to this module: its subscriptions end when the module is disposed. */
  bus: EventScope;
  /** The persona being booted. */
  persona: Persona;
  /** Platform adapters (storage, project files). */
  platform: Platform;
  /** Tool declarations from the manifests that name this upgrade as their module. */
  tools: readonly ToolDeclaration[];
  /** Per-upgrade options from the boot call (`boot({ config: { [id]: {...} } })`). Default: `{}`. */
  config: Readonly<Record<string, unknown>>;
  /**
   * Number option `key` of {@link config}, `fallback` when it is absent. A value that is not a
   * number of 0 or more (or, for a `…TimeoutMs`, not a time limit a timer holds) throws
   * `INVALID_CONFIG` naming the option, the value and the default: the upgrade fails, the rest boots.
   */
  configNumber(key: string, fallback: number): number;
  configNumber(key: string): number | undefined;
  /** Reports parts this upgrade runs as modules of their own (see {@link ModuleParts}). */
  parts: ModuleParts;
  /**
   * How long the init of part `part` (e.g. `upgrade:notes-index`) may take, in ms: the boot's
   * `initTimeouts[part]`, else its `initTimeoutMs` (default 2000). An upgrade that starts parts
   * bounds each one's init with it, as the kernel bounds the upgrade's own.
   */
  initTimeoutMs(part: string): number;
  /**
   * Safe mode (`armature boot --safe`, the dashboard's `?safe`): only what the persona files in
   * `modules/` name runs; nothing an agent made is brought back into force at boot. Default: false.
   */
  safe: boolean;
}

/** What an upgrade's factory returns: a container instance plus the tools it implements. */
export interface UpgradeInstance<Api = unknown> extends ModuleInstance<Api> {
  /** Handlers for the tools this upgrade implements, by tool name. Default: none. */
  tools?: Readonly<Record<string, ToolHandler>>;
  /**
   * How long its `init` may take at boot, in ms, for an upgrade whose init waits on work bounded
   * by limits of its own (the McpClient's servers' start). The boot's `initTimeouts[id]` wins over
   * it. Default: the boot's `initTimeoutMs` (2000).
   */
  initTimeoutMs?: number;
}

/** The shape of an upgrade's entry module (`upgrades/<folder>/index.ts`). */
export interface UpgradeModule<Api = unknown> {
  metadata: UpgradeMetadata;
  /**
   * Its options' schema (`boot({ config: { [id]: {...} } })`): boot checks the options against it
   * before the factory runs, and an unknown key or a value it cannot take fails the upgrade with
   * `INVALID_CONFIG`, naming the key and what it takes. Default: none (options unchecked).
   */
  configSchema?: ConfigSchema;
  factory(deps: Record<string, unknown>, context: UpgradeContext): UpgradeInstance<Api> | Promise<UpgradeInstance<Api>>;
}

/** What an upgrade's early start gets: what its factory will get that is known before boot reaches it. */
export interface EarlyStartContext {
  /** The upgrade's options, the very `context.config` its factory will get. Default: `{}`. */
  config: Readonly<Record<string, unknown>>;
  /** The persona being booted. */
  persona: Persona;
  /** Platform adapters, the factory's own. */
  platform: Platform;
  /**
   * Aborted once nothing will take over what the early start began: the upgrade failed to load,
   * or it was disposed. Whatever the upgrade did not take over by then is to be stopped.
   */
  signal: AbortSignal;
}

/**
 * The shape of an upgrade's early start (`upgrades/<folder>/early-start.ts`, named by `earlyStart`
 * in its `modules/upgrades.json` entry): a module kept small, because boot imports it before any
 * entry and calls it at once, so slow work the upgrade's factory would start anyway (PyodideRuntime:
 * Python's child process) runs while the rest of the persona boots, and the factory takes it over.
 */
export interface EarlyStartModule {
  /**
   * Starts the work; called once per boot, only for an upgrade the persona loads, with the config
   * its factory will get. It resolves once the work is under way (a process being started), not
   * done: boot waits for that, at most `EARLY_START_WAIT_MS` (1 s), before it imports the entries,
   * so the work's first steps do not queue behind theirs. What it throws or rejects with never
   * fails the boot or the module: it is reported as `module:early-start-failed`.
   */
  earlyStart(context: EarlyStartContext): void | Promise<void>;
}
