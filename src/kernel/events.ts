import type { ErrorInfo } from './errors.ts';
import type { StatusSnapshot } from './status-snapshot.ts';

/** Who asked for a tool call. `python` marks calls made through `call_tool` inside Python. */
export type ToolCaller = 'agent' | 'python' | 'cli' | 'ui' | 'test' | (string & {});

/**
 * The single event map of the whole system: every event name and its payload.
 * Names are facts in the past tense. Payloads are plain, clone-safe data.
 *
 * The kernel's events are declared here. A built-in upgrade that adds events of its own declares
 * them in its folder by module augmentation, so they stay typed without editing this file:
 *
 * ```ts
 * declare module '../../src/kernel/events.ts' {
 *   interface ArmatureEvents { 'made-upgrades:status': { id: string; status: UpgradeStatus } }
 * }
 * ```
 *
 * and lists their names in its `modules/upgrades.json` entry (`events`) and its metadata, which boot
 * checks agree. The events that code in src/ follows as well (the CLI, the MCP server) are declared
 * the same way, beside the shared contract they belong to in `src/contracts/`: the Python
 * runtime's `python:*` (`python-events.ts`), the Agent's `agent:*`, the change path's `change:*`
 * and the data folder's processes' `process:*` (`process-contract.ts`). Agent-made upgrades cannot
 * be typed: they declare their events with a JSON Schema and the bus validates them at run time
 * (`declareEvents`, `declared-events.ts`).
 */
export interface ArmatureEvents {
  /**
   * A module started loading (import + factory + init). `parent` marks a part an upgrade runs
   * itself (an MCP server of the McpClient, `mcp:memory`), reported like a module.
   */
  'module:loading': { id: string; parent?: string };
  /** A module (or a part, see `parent`) finished loading successfully. */
  'module:loaded': { id: string; version: string; durationMs: number; parent?: string };
  /**
   * A module failed; `rootCause` names the module whose own failure started the chain, `tools` the
   * tools its manifest declares (missing until it loads).
   */
  'module:failed': { id: string; error: ErrorInfo; durationMs: number; rootCause?: string; parent?: string; tools?: string[] };
  /** A module was disposed. */
  'module:disposed': { id: string; parent?: string };
  /**
   * An upgrade's early start could not be imported, or its `earlyStart` threw or rejected. The
   * boot and the module go on: the factory starts what the early start would have begun.
   */
  'module:early-start-failed': { id: string; error: ErrorInfo };
  /**
   * A module's (or a part's) status snapshot changed: what its card shows, as plain data. Coalesced
   * per module: at most one every ~100 ms, the latest state on the trailing edge.
   */
  'module:status': { id: string; status: StatusSnapshot };
  /** The loader finished booting a persona. */
  'system:booted': { persona: string; loaded: string[]; failed: string[]; durationMs: number };
  /**
   * A bus listener threw (or its promise rejected) on `event`; the other listeners still got the
   * event. Reported once per listener; `owner` is the scope that subscribed it (a module's id).
   */
  'system:listener-failed': { owner: string; event: string; error: ErrorInfo };

  /** Tools were registered with the ToolRunner (by the module that declares them). */
  'tool:registered': { module: string; names: string[] };
  /** A registration of tools was removed (its module disposed, a made tool retired or replaced, an MCP server's list changed). */
  'tool:unregistered': { module: string; names: string[] };
  /** A tool call started. */
  'tool:started': { callId: string; name: string; caller: ToolCaller };
  /** A tool call finished (successfully or not). */
  'tool:finished': { callId: string; name: string; caller: ToolCaller; ok: boolean; durationMs: number; error?: ErrorInfo };

  /**
   * A session (an agent run, an MCP session, a console) ended: what it held — its Python runtime
   * and globals — can go to another session at once, without waiting for the idle reclaim.
   */
  'session:ended': { session: string };
  /** PythonTool finished an execution and updated its statistics. */
  'python-tool:executed': { runId: string; ok: boolean; durationMs: number; errorType?: string };
  /** `call_tool` inside Python called a JS tool. */
  'tool-bridge:called': { name: string; argBytes: number; resultBytes: number; durationMs: number; ok: boolean };
  /** A `call_tool` call was slower than the configured threshold. */
  'tool-bridge:slow': { name: string; durationMs: number; thresholdMs: number };

  /** A workspace file was created or changed. */
  'workspace:written': { path: string; size: number; mtime: number };
  /** A workspace file was deleted. */
  'workspace:deleted': { path: string };
  /**
   * The workspace read its store again and found files another process wrote (`files` changed;
   * `areas`: the system areas among them, e.g. `runs`). User files also get `workspace:written` / `workspace:deleted`.
   */
  'workspace:reloaded': { files: number; areas: string[] };

  /** A widget was attached to the page. */
  'widget:mounted': { module: string; tag: string };
  /** A widget was removed from the page. */
  'widget:unmounted': { module: string; tag: string };
  /** A widget control was used. */
  'widget:action': { module: string; action: string };
}

/** Any event name. */
export type ArmatureEventType = keyof ArmatureEvents;

type PrefixOf<K> = K extends `${infer P}:${string}` ? P : never;

/** The prefixes of the events declared in this file, each checked against the map above by the compiler. */
const OWN_PREFIXES = ['module', 'system', 'tool', 'python-tool', 'tool-bridge', 'workspace', 'widget', 'session'] as const satisfies readonly PrefixOf<ArmatureEventType>[];

/**
 * The prefixes (before the `:`) reserved for the system's own events: the kernel's, and those of
 * the shared contracts in `src/contracts/` (`python`, `agent`, `change`, `process`). No upgrade may declare
 * events under them (the built-in upgrades' own prefixes are reserved at boot from the manifests);
 * a declared event never reaches a typed handler anyway.
 */
export const KERNEL_EVENT_PREFIXES = [...OWN_PREFIXES, 'python', 'agent', 'change', 'process'] as const;
