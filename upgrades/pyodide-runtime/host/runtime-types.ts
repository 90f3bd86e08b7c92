/**
 * The PyodideRuntime contract: its API, what it reports, and what it needs from its host.
 * Options live in `runtime-options.ts`; both are re-exported by `runtime.ts`.
 */
import type { ArmatureEvents } from '../../../src/kernel/events.ts';
import type { PythonPoolState, PythonStatus } from '../../../src/contracts/python-events.ts';
import type { PackageInfo, PythonErrorInfo, Transport } from '../protocol/protocol.ts';

/** The subset of the Workspace API the runtime needs for `syncWorkspace`. */
export interface WorkspaceLike {
  list(): { path: string; size: number; mtime: number }[];
  read(path: string): Uint8Array;
  write(path: string, data: Uint8Array): Promise<unknown>;
  /** Needed only to apply deletions (`syncWorkspace(..., { delete: true })`). */
  delete?(path: string): Promise<unknown>;
}

/** What the runtime reports to and needs from its host (the upgrade wires it to the bus). */
export interface RuntimeHost {
  emit<K extends keyof ArmatureEvents>(type: K, payload: ArmatureEvents[K]): void;
  workspace?: WorkspaceLike;
}

/** A tool call made by Python through `call_tool`, as the runtime hands it to the host. */
export type ToolCallHandler = (
  name: string,
  args: unknown,
  instance?: string,
  /** The session whose runtime of the pool made the call; none for the shared runtime. */
  session?: string,
) => Promise<{ ok: true; value: unknown } | { ok: false; error: { code: string; message: string }; hint?: string }>;

/** One answered `call_tool`, as the bridge saw it. */
export interface BridgeCall {
  name: string;
  /** Bytes of the arguments' JSON as Python sent it. */
  argBytes: number;
  /** Bytes of the answer as it crossed to Python (its marshal document). */
  resultBytes: number;
  /** From the request reaching the host to the answer being encoded, in ms. */
  durationMs: number;
  ok: boolean;
}

/** Options of one run. */
export interface ExecuteOptions {
  /** Default: the runtime's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Id that tags this run's output events. Default: generated. */
  runId?: string;
  /**
   * Interrupts this run when aborted (a run still waiting for its turn does not start). Other
   * runs are never touched. Default: none.
   */
  signal?: AbortSignal;
  /**
   * The session this run belongs to (an agent run, an MCP session, a console): it runs in that
   * session's own runtime of the pool, with that session's globals, and may run while other
   * sessions' runs do. A name of at most 128 characters. Default: none — the shared runtime and
   * its one set of globals, one run at a time.
   */
  session?: string;
}

/**
 * Outcome of a run: never thrown. `notice` says what the caller should know beyond the outcome:
 * the runtime was restarted after this run, or before it (a new interpreter), so globals, imports
 * and installed packages were lost.
 */
export type ExecuteResult =
  | { ok: true; value: unknown; stdout: string; stderr: string; executionTime: number; runId: string; notice?: string }
  | { ok: false; error: PythonErrorInfo; hint?: string; stdout: string; stderr: string; executionTime: number; runId: string; notice?: string };

/** Snapshot of the runtime for widgets and tools. */
export interface RuntimeState {
  status: PythonStatus;
  pythonVersion?: string;
  pyodideVersion?: string;
  transport?: Transport;
  packages: PackageInfo[];
  executions: number;
  /** Bytes of the WebAssembly heap, when measurable. */
  memoryBytes?: number;
  lastError?: PythonErrorInfo;
  /** Times the worker was replaced (timeouts Python ignored, crashes, `restart()`). */
  restarts: number;
  /** Whether the current worker was restored from the start-up snapshot (see the `snapshot` option). */
  fromSnapshot?: boolean;
  /** The runtime pool serving sessions (this state is the shared runtime's). */
  pool?: PythonPoolState;
}

/** What a `syncWorkspace` may change in the workspace (the caller's permissions: PythonTool passes the persona's). */
export interface SyncOptions {
  /** Write the files Python created or changed into the workspace; when false they are listed as `refused`. Default: true. */
  write?: boolean;
  /** Delete from the workspace the synced files Python deleted; when false they are only reported. Default: false. */
  delete?: boolean;
  /** The session whose runtime to sync (see {@link ExecuteOptions.session}). Default: the shared runtime. */
  session?: string;
}

/** Counts and bytes moved by {@link PyodideRuntimeApi.syncWorkspace}. */
export interface SyncReport {
  direction: 'in' | 'out' | 'both';
  in?: { count: number; bytes: number; skipped: string[] };
  out?: {
    /** Files written into the workspace, and their bytes. */
    count: number;
    bytes: number;
    /** Files synced in that Python deleted since. */
    deleted: string[];
    /** Files over `maxSyncBytes`, left in Python. */
    skipped: string[];
    /** Of `deleted`, those deleted from the workspace too (`delete: true`). */
    removed?: string[];
    /** Files Python created or changed that were not written (`write: false`). */
    refused?: string[];
    /** Files the workspace refused (a name it cannot keep, a folder in the way, its quota), with why. */
    failed?: { path: string; error: string }[];
  };
}

/** What `installPackage` answers. */
export type InstallResult = { ok: true; installed: string[] } | { ok: false; error: PythonErrorInfo; hint?: string };

/** How one runtime runs code (the pool adds sessions on top). */
export type CoreExecuteOptions = Omit<ExecuteOptions, 'session'>;

/**
 * One runtime: a worker (or confined child) and its interpreter, one set of globals. The pool
 * ({@link PyodideRuntimeApi}) is made of these; they take no sessions.
 */
export interface RuntimeCore {
  init(): Promise<void>;
  isReady(): boolean;
  getState(): RuntimeState;
  execute(code: string, options?: CoreExecuteOptions): Promise<ExecuteResult>;
  installPackage(spec: string | { fileName: string; bytes: Uint8Array }): Promise<InstallResult>;
  listPackages(): Promise<PackageInfo[]>;
  /**
   * Copies workspace files into Python's `/workspace` ('in') and what Python created, changed or
   * deleted there back ('out'), as far as `options` allows. Default: see {@link SyncOptions}.
   */
  syncWorkspace(direction: 'in' | 'out' | 'both', options?: SyncOptions): Promise<SyncReport>;
  interrupt(): void;
  restart(): Promise<void>;
  reset(): Promise<void>;
  dispose(): Promise<void>;
  /**
   * Sets who runs tools for `call_tool` (the PythonTool upgrade), and optionally who hears about
   * each answered call (after the answer is on its way, so it costs the caller nothing).
   */
  setToolCallHandler(handler: ToolCallHandler | undefined, observe?: (call: BridgeCall) => void): void;
  /**
   * Installs Python source files under the module path (e.g. `tools/workspace.py`), now if the
   * runtime is running and again after every restart.
   */
  setPythonModules(files: { path: string; source: string }[]): Promise<void>;
}

/**
 * The PyodideRuntime API (the upgrade's contract): the shared runtime for calls without a
 * session, and a pool of runtimes for sessions (`session` in the options of `execute`,
 * `installPackage`, `syncWorkspace`, `interrupt`). Everything else concerns the shared runtime,
 * except `setToolCallHandler` and `setPythonModules` (every runtime) and `dispose` (all of them).
 */
export interface PyodideRuntimeApi extends Omit<RuntimeCore, 'execute' | 'getState' | 'installPackage' | 'listPackages' | 'interrupt'> {
  /** Runs `code` in `options.session`'s runtime of the pool, or in the shared runtime. */
  execute(code: string, options?: ExecuteOptions): Promise<ExecuteResult>;
  /** The state of the shared runtime, or of `session`'s runtime when it has one; with the pool's. */
  getState(options?: { session?: string }): RuntimeState;
  installPackage(spec: string | { fileName: string; bytes: Uint8Array }, options?: { session?: string }): Promise<InstallResult>;
  /**
   * The packages of `session`'s runtime (one is taken for the session if it has none: its next run
   * uses it), or of the shared runtime.
   */
  listPackages(options?: { session?: string }): Promise<PackageInfo[]>;
  /** Interrupts the running code of `session`'s runtime, or of the shared runtime. */
  interrupt(session?: string): void;
  /**
   * Ends `session`: its runtime is stopped (after a run in flight finishes) and its own modules
   * (`setSessionModules`) forgotten. A later run of the same name starts on a fresh runtime, with
   * a `notice` that its globals were lost.
   */
  endSession(session: string): Promise<void>;
  /**
   * Python module files only `session`'s runtime gets, beside those of `setPythonModules` (an
   * agent-made tool's code, which no other interpreter may see): installed before the session's
   * next operation, and again in each runtime the session is given later, until it ends. An empty
   * list forgets them. Rejects an invalid session name (`INVALID_SESSION`).
   */
  setSessionModules(session: string, files: { path: string; source: string }[]): Promise<void>;
}
