/**
 * The PythonTool's contract: its options, the arguments and results of `execute_python`, its
 * statistics, extensions from other upgrades, and the API the widget, the console and other
 * upgrades use.
 */
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { ExecuteResult, PyodideRuntimeApi, SyncReport } from '../pyodide-runtime/contract.ts';
import type { PromptPlan, PromptStats } from './prompt.ts';
import type { PythonStatus } from '../../src/contracts/python-events.ts';
import type { PackageInfo } from '../pyodide-runtime/contract.ts';

/** Statistics for the widget. */
export interface PythonToolStats {
  executions: number;
  successes: number;
  failures: number;
  /** 0..1, or undefined before the first run. */
  successRate?: number;
  meanMs: number;
  /** Most recent failures, newest first (at most 10). */
  errors: { type: string; message: string; at: number }[];
  lastExecution?: { at: number; ok: boolean; durationMs: number };
}

/** Options of `createPythonTool` (python-tool.ts). */
export interface PythonToolOptions {
  runtime: PyodideRuntimeApi;
  runner: ToolRunnerApi;
  persona: Persona;
  bus: Pick<EventSource, 'emit'>;
  /** How long `execute_python` waits for the runtime to become ready, in ms. Default: 120000. */
  readyTimeoutMs?: number;
  /** `call_tool` calls slower than this raise a `tool-bridge:slow` event and a log line, in ms. Default: 5000. */
  slowCallMs?: number;
  /** Where slow-call warnings are logged. Default: console.warn. */
  warn?: (message: string) => void;
}

/** Arguments of `execute_python`. */
export interface ExecutePythonArgs {
  code: string;
  install_packages?: string[];
  sync_workspace?: boolean;
  timeout_ms?: number;
  /** Tags the run's output events (the console follows its own run). Not part of the tool schema. */
  runId?: string;
  /** Interrupts the run when aborted (a cancelled tool call). Not part of the tool schema. */
  signal?: AbortSignal;
  /**
   * The caller's session (the ToolRunner call's `session`): the run, its installs and its
   * workspace sync go to that session's own runtime and globals. Not part of the tool schema.
   * Default: the shared runtime.
   */
  session?: string;
}

/** What `execute_python` returns on success (failures become `{ ok: false, error, hint }`). */
export interface ExecutePythonValue {
  value: unknown;
  stdout: string;
  stderr: string;
  executionTime: number;
  installed?: string[];
  sync?: { in?: SyncReport['in']; out?: SyncOut };
  /** The runtime was restarted after (or before) this run: globals, imports and installed packages were lost. */
  notice?: string;
}

/**
 * What `sync_workspace` brought out of Python: the runtime's report, and `notice` when the
 * persona kept something in (files Python wrote without `write_file`, deletions without `delete_file`).
 */
export type SyncOut = NonNullable<SyncReport['out']> & { notice?: string };

/** `error.details` of a failed `execute_python` (its `error.code` is the Python exception type). */
export interface ExecutePythonErrorDetails {
  traceback: string;
  stdout: string;
  stderr: string;
  executionTime: number;
  /** 1-based line of a SyntaxError. */
  line?: number;
  /** 1-based column of a SyntaxError. */
  column?: number;
  /** As {@link ExecutePythonValue.notice}. */
  notice?: string;
}

/**
 * Python another upgrade adds to every interpreter: modules of its own, beside the generated
 * `tools.*`. Every runtime gets them, so they must be code all of them may run (never an
 * agent's: agent-made Python tools run in interpreters of their own, 0x000081).
 */
export interface PythonExtension {
  /** Module files under the module path, e.g. `my_helpers/__init__.py`. Asked at every sync. */
  modules(): readonly { path: string; source: string }[];
}

/** The PythonTool API. */
export interface PythonToolApi {
  /**
   * Adds Python modules from another upgrade to every interpreter; they are part of every later
   * sync. The disposable removes them (from the next sync on).
   */
  addExtension(extension: PythonExtension): Disposable;
  /**
   * Makes the runtime's generated modules (`tools.*`, and the extensions') current now, instead of
   * at the next `execute_python`. Cheap when nothing changed.
   */
  syncModules(): Promise<void>;
  executePython(args: ExecutePythonArgs): Promise<ExecuteResult & { installed?: string[]; sync?: ExecutePythonValue['sync'] }>;
  getStats(): PythonToolStats;
  listSkills(): { namespace: string; tools: string[] }[];
  readSkill(namespace: string): string;
  getSkillIndex(): string;
  /** The system-prompt fragment for `persona` (default: the booted one). */
  getSystemPrompt(persona?: Persona): string;
  /** Size of the prompt fragment against the JSON schemas of the tools it covers, in characters. */
  getPromptStats(persona?: Persona): PromptStats;
  /** The fragment, its mode and which tools the model needs as native declarations next to it. */
  getPromptPlan(persona?: Persona): PromptPlan;
  /** The runtime's state (packages, status, transport), for widgets. */
  getRuntimeState(): ReturnType<PyodideRuntimeApi['getState']>;
  /** Tools this upgrade provides and the namespaces usable from Python. */
  getCatalog(): { tools: { name: string; description: string }[]; namespaces: { namespace: string; tools: string[] }[] };
  /** Interrupts the running Python code of `session`, or of the shared runtime (KeyboardInterrupt; a restart if it does not stop). */
  interrupt(session?: string): void;
}

/** The arguments of `execute_python`, as its tool schema takes them. */
export interface ExecutePythonToolArgs {
  code: string;
  install_packages?: string[];
  sync_workspace?: boolean;
  timeout_ms?: number;
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    PythonTool: PythonToolApi;
  }
}

declare module '../../src/kernel/tool-contract.ts' {
  interface ArmatureToolMap {
    execute_python: { args: ExecutePythonToolArgs; value: ExecutePythonValue };
    install_python_package: { args: { package: string }; value: { installed: string[]; packages: PackageInfo[] } };
    list_python_packages: { args: Record<string, never>; value: { packages: PackageInfo[]; status: PythonStatus } };
    list_skills: { args: Record<string, never>; value: { skills: { namespace: string; tools: string[] }[]; index: string } };
    read_skill: { args: { namespace: string }; value: { namespace: string; markdown: string } };
  }
}
