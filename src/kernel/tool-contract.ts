import type { ErrorInfo } from './errors.ts';
import type { ToolCaller } from './events.ts';
import type { Disposable } from './lifecycle.ts';
import type { AllowList } from './allow-list.ts';
import type { ToolDeclaration } from './manifest-schemas.ts';
import type { ToolCallContext } from './upgrade.ts';

/** Id of the upgrade that runs tools; upgrades that implement tools depend on it. */
export const TOOL_RUNNER_ID = 'ToolRunner';

/** The callers that are a person: the dashboard (`ui`) and the command line (`cli`). */
export const PERSON_CALLERS: readonly ToolCaller[] = ['ui', 'cli'];

/** Whether `caller` is a person, who may call tools declared with `audience: "person"`. */
export function isPersonCaller(caller: ToolCaller | undefined): boolean {
  return caller === 'ui' || caller === 'cli';
}

/** The hint of a person-only tool refused to anyone else. */
export const PERSON_ONLY_HINT = 'approve it on the dashboard or with armature approve';

/** A successful tool call. */
export interface ToolSuccess<T = unknown> {
  ok: true;
  value: T;
  durationMs: number;
}

/** A failed tool call: never thrown, always returned. */
export interface ToolFailure {
  ok: false;
  error: ErrorInfo;
  /** What to try next, for an agent or a person. */
  hint?: string;
  durationMs: number;
}

/** The result of every tool call. */
export type ToolResult<T = unknown> = ToolSuccess<T> | ToolFailure;

/**
 * The tools whose arguments and value are known, by name: `executeTool('read_file', { path })`
 * resolves to a `ToolResult` whose `value` is read_file's. Upgrades add their tools by module
 * augmentation in their folder, as they add services (`services.ts`) and events:
 *
 * ```ts
 * declare module '../../src/kernel/tool-contract.ts' {
 *   interface ArmatureToolMap { read_file: { args: { path: string; encoding?: 'utf8' | 'base64' }; value: ReadFileValue } }
 * }
 * ```
 *
 * Tools outside the map (MCP servers', agent-made ones, a root's unless it adds them) are called
 * by any name, their value `unknown` unless you name its type.
 */
// biome-ignore lint/suspicious/noEmptyInterface: upgrades fill it by module augmentation
export interface ArmatureToolMap {}

/** The name of a tool whose arguments and value are known. */
export type KnownToolName = keyof ArmatureToolMap & string;

/** The arguments of known tool `N`. */
export type ToolArgs<N extends KnownToolName> = ArmatureToolMap[N] extends { args: infer A } ? A : never;

/** The value of known tool `N` when it succeeds. */
export type ToolValue<N extends KnownToolName> = ArmatureToolMap[N] extends { value: infer V } ? V : never;

/** Runs one tool; `args` are already validated. */
export type ToolExecutor = (name: string, args: Record<string, unknown>, call: ToolCallContext) => unknown | Promise<unknown>;

/** Options of one call. */
export interface ExecuteOptions {
  /** Who is calling. Default: `agent`. */
  caller?: ToolCaller;
  /** Timeout for this call in ms. Default: the tool's `timeoutMs`, else the runner's default (30 s). */
  timeoutMs?: number;
  /** Which registration of a tool registered several times (`registerTools(..., { instance })`). Default: the only one. */
  instance?: string;
  /**
   * Id of this call in events and in the handler's `call.callId` (e.g. to follow a Python run's
   * output, whose runId it becomes). Default: a generated `call-N`.
   */
  callId?: string;
  /**
   * Cancels the call: it answers `CANCELLED` at once and the handler's `call.signal` aborts (Python
   * is interrupted, an MCP server is told). Default: none.
   */
  signal?: AbortSignal;
  /**
   * The session the call belongs to (an agent run, an MCP session, a console): tools that keep
   * state per session — `execute_python`'s globals, in a Python runtime of the session's own —
   * keep this call's apart from other sessions'. A name of at most 128 characters. Default: none
   * (the shared session).
   */
  session?: string;
}

/** Per-tool statistics. */
export interface ToolStats {
  name: string;
  calls: number;
  errors: number;
  meanMs: number;
  p95Ms: number;
  lastCallAt?: number;
}

/** The ToolRunner's public API (contract of the `ToolRunner` upgrade). */
export interface ToolRunnerApi {
  /**
   * Registers tools implemented by `executor`. The disposable unregisters them. A tool group can
   * be registered several times, each with its own `instance` id (e.g. two databases); callers
   * then pick one with `instance` (Python: `instance_id=`). Names are snake_case, or
   * `<namespace>.<tool>` for tools registered under a namespace (its `namespace` field);
   * anything else throws `INVALID_TOOL_NAME`.
   */
  registerTools(declarations: readonly ToolDeclaration[], executor: ToolExecutor, options?: { instance?: string }): Disposable;
  /**
   * Runs a tool. Never throws. A tool of {@link ArmatureToolMap} called with its arguments' type
   * resolves to its value's type; any other call to `T` (default `unknown`).
   */
  executeTool<N extends KnownToolName>(name: N, args: ToolArgs<N>, options?: ExecuteOptions): Promise<ToolResult<ToolValue<N>>>;
  executeTool<T = unknown>(name: string, args?: unknown, options?: ExecuteOptions): Promise<ToolResult<T>>;
  /**
   * Declarations of registered tools the persona (or any allow-list: `EVERY_TOOL` for all of
   * them) allows — what agents, MCP clients and Python are offered. Person-only tools
   * (`audience: "person"`) are left out unless `audience` is `person`: then they come too, whatever
   * the allow-list (what the dashboard and the command line may call). Default persona: the booted
   * one; default audience: agents.
   */
  getToolDeclarations(options?: { persona?: AllowList; audience?: 'agent' | 'person' }): ToolDeclaration[];
  /** Whether a tool is registered (allowed or not). */
  hasTool(name: string): boolean;
  /** The declaration of a registered tool (allowed or not; its first registration's), or `undefined`. */
  getToolDeclaration(name: string): ToolDeclaration | undefined;
  /** Instance ids of a tool registered several times (empty for a single registration). */
  getToolInstances(name: string): string[];
  /**
   * A number that changes whenever a tool is registered or unregistered, so a caller that derives
   * something from the registered tools (PythonTool's generated modules) can tell that nothing
   * changed without reading them again. Optional: without it, callers read the tools each time.
   */
  revision?(): number;
  /** Statistics for every tool that has been called or registered. */
  getStats(): ToolStats[];
}
