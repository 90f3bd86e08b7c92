import type { ErrorInfo } from './errors.ts';

/** Who asked for a tool call. `python` marks calls made through `call_tool` inside Python. */
export type ToolCaller = 'agent' | 'python' | 'cli' | 'ui' | 'test' | (string & {});

/** Stages of Python runtime start-up, in order. */
export type PythonLoadStage = 'fetch' | 'compile' | 'stdlib' | 'ready';

/** Status of the Python runtime. */
export type PythonStatus = 'idle' | 'loading' | 'ready' | 'busy' | 'restarting' | 'error';

/**
 * The single event map of the whole system: every event name and its payload.
 * Names are facts in the past tense. Payloads are plain, clone-safe data.
 */
export interface ArmatureEvents {
  /**
   * A module started loading (import + factory + init). `parent` marks a part an upgrade runs
   * itself (an MCP server of the McpClient, `mcp:memory`), reported like a module.
   */
  'module:loading': { id: string; parent?: string };
  /** A module (or a part, see `parent`) finished loading successfully. */
  'module:loaded': { id: string; version: string; durationMs: number; parent?: string };
  /** A module failed; `rootCause` names the module whose own failure started the chain. */
  'module:failed': { id: string; error: ErrorInfo; durationMs: number; rootCause?: string; parent?: string };
  /** A module was disposed. */
  'module:disposed': { id: string; parent?: string };
  /** The loader finished booting a persona. */
  'system:booted': { persona: string; loaded: string[]; failed: string[]; durationMs: number };

  /** A module registered tools with the ToolRunner. */
  'tool:registered': { module: string; names: string[] };
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

  /** A widget was attached to the page. */
  'widget:mounted': { module: string; tag: string };
  /** A widget was removed from the page. */
  'widget:unmounted': { module: string; tag: string };
  /** A widget control was used. */
  'widget:action': { module: string; action: string };
}

/** Any event name. */
export type ArmatureEventType = keyof ArmatureEvents;
