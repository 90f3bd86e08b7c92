import type { ChangeRecord, ProposedChange } from './change-contract.ts';
import type { ErrorInfo } from './errors.ts';

/** Who asked for a tool call. `python` marks calls made through `call_tool` inside Python. */
export type ToolCaller = 'agent' | 'python' | 'cli' | 'ui' | 'test' | (string & {});

/** Stages of Python runtime start-up, in order. */
export type PythonLoadStage = 'fetch' | 'compile' | 'stdlib' | 'ready';

/** Why an agent run (or one turn of it) ended. */
export type AgentStopReason = 'answered' | 'max-steps' | 'aborted' | 'error';

/** Tokens a model read and wrote, summed over the steps counted. */
export interface AgentUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Which model an agent run talks to (never its key). */
export interface AgentModelRef {
  provider: 'openai' | 'anthropic' | 'google' | 'openai-compatible';
  model: string;
  baseURL?: string;
}

/** The runtime pool as the PyodideRuntime widget shows it (see the `python:pool` event). */
export interface PythonPoolState {
  /** Most runtimes serving sessions at once (`poolSize`). */
  size: number;
  /** Runtimes started for sessions, bound to one or kept warm for the next. */
  workers: number;
  /** Of `workers`, those running code. */
  busy: number;
  /** Sessions holding a runtime. */
  sessions: number;
  /** Runs waiting for a runtime to become free. */
  queued: number;
  /** Most runs that may wait (`poolQueueLimit`); one more gets `RUNTIME_BUSY`. */
  queueLimit: number;
}

/** Status of the Python runtime. */
export type PythonStatus = 'idle' | 'loading' | 'ready' | 'busy' | 'restarting' | 'error';

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
 * checks agree. Agent-made upgrades cannot be typed: they declare their events with a JSON Schema
 * and the bus validates them at run time (`declareEvents`, `declared-events.ts`).
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

  /** Python runtime start-up progress. */
  'python:progress': { stage: PythonLoadStage; percent: number; message?: string };
  /** The Python runtime changed status. */
  'python:state': { status: PythonStatus; message?: string };
  /** A Python run started. */
  'python:started': { runId: string };
  /** A chunk of a run's stdout. */
  'python:stdout': { runId: string; chunk: string };
  /** A chunk of a run's stderr. */
  'python:stderr': { runId: string; chunk: string };
  /** A Python run finished. */
  'python:finished': { runId: string; ok: boolean; executionTime: number; errorType?: string };
  /**
   * The runtime pool changed: how many runtimes serve sessions (`workers`, of at most `size`), how
   * many of them run code (`busy`), sessions holding one, and runs waiting for one (`queued`, of at
   * most `queueLimit`). The shared runtime (runs without a session) is not part of the pool.
   */
  'python:pool': PythonPoolState;
  /**
   * A session (an agent run, an MCP session, a console) ended: what it held — its Python runtime
   * and globals — can go to another session at once, without waiting for the idle reclaim.
   */
  'session:ended': { session: string };
  /** PythonTool finished an execution and updated its statistics. */
  'python-tool:executed': { runId: string; ok: boolean; durationMs: number; errorType?: string };
  /** A package was installed into the Python runtime. */
  'python:package-installed': { name: string; version: string };
  /** `call_tool` inside Python called a JS tool. */
  'tool-bridge:called': { name: string; argBytes: number; resultBytes: number; durationMs: number; ok: boolean };
  /** A `call_tool` call was slower than the configured threshold. */
  'tool-bridge:slow': { name: string; durationMs: number; thresholdMs: number };

  /** A workspace file was created or changed. */
  'workspace:written': { path: string; size: number; mtime: number };
  /** A workspace file was deleted. */
  'workspace:deleted': { path: string };

  /** An agent run started, or a finished run was continued with a follow-up (`continued`). */
  'agent:run-started': { runId: string; goal: string; persona: string; model?: AgentModelRef; toolMode: 'code' | 'direct'; maxSteps: number; continued: boolean };
  /** A piece of the assistant's text, as the model streamed it. */
  'agent:text-delta': { runId: string; step: number; delta: string };
  /** The model called a tool; `pythonRunId` tags the `python:stdout`/`python:stderr` of an `execute_python` call. */
  'agent:tool-called': { runId: string; step: number; toolCallId: string; name: string; args: unknown; pythonRunId?: string };
  /** A tool call of the model finished; `result` is what the model was given back. */
  'agent:tool-finished': { runId: string; step: number; toolCallId: string; name: string; ok: boolean; durationMs: number; result: unknown };
  /** A request to the model failed; `willRetry` when it is tried again (429, 5xx). */
  'agent:request-failed': { runId: string; step: number; status?: number; message: string; attempt: number; willRetry: boolean };
  /** One model step (one request and the tool calls it asked for) finished. */
  'agent:step-finished': { runId: string; step: number; finishReason: string; usage: AgentUsage; toolCalls: number };
  /** A run (or one follow-up turn) ended. `usage` sums the turn's steps. */
  'agent:run-finished': { runId: string; reason: AgentStopReason; steps: number; usage: AgentUsage; answer?: string; error?: ErrorInfo };
  /** The agent's model settings changed (the key itself is never in an event). */
  'agent:settings-changed': { model?: AgentModelRef; hasKey: boolean };

  /** A change was proposed: its version is stored and its gate (checks, tests) is running; it has no status yet. */
  'change:proposed': { change: ProposedChange };
  /** A change was rejected: its gate failed, a person refused it, or it could not be activated (`change.outcome` says which). */
  'change:rejected': { change: ChangeRecord };
  /** A change passed its gate and waits for a person to approve or reject it. */
  'change:pending': { change: ChangeRecord };
  /** A person approved a pending change (`change.approver`: `ui` or `cli`); `change:activated` follows. */
  'change:approved': { change: ChangeRecord };
  /** A change came into force. */
  'change:activated': { change: ChangeRecord };
  /** A change in force was replaced by a later one. */
  'change:superseded': { change: ChangeRecord };
  /** A change in force was undone by a rollback; `reason` says why (asked for, or what the canary saw). */
  'change:rolled-back': { change: ChangeRecord; reason: string };
  /** A stored version in force could not be brought back at boot; it was skipped. */
  'change:load-failed': { change: ChangeRecord; error: ErrorInfo };

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

/**
 * The prefixes of the kernel's events (before the `:`): no upgrade may declare events under them
 * (the built-in upgrades' own prefixes are reserved at boot from the manifests). Each is checked
 * against the map above by the compiler; a declared event never reaches a typed handler anyway.
 */
export const KERNEL_EVENT_PREFIXES = ['module', 'system', 'tool', 'python', 'python-tool', 'tool-bridge', 'workspace', 'agent', 'change', 'widget', 'session'] as const satisfies readonly PrefixOf<ArmatureEventType>[];
