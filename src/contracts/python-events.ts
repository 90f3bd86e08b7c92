/**
 * The Python runtime's events (upgrade `PyodideRuntime`) and the state they carry. A shared
 * contract (`src/contracts/`): the runtime emits them, and the CLI (`armature run`, `agent`), the
 * MCP server, the widgets and other upgrades follow them; src/ imports nothing from upgrades/, so
 * they are declared here, by augmentation of the event map as an upgrade declares its own, and not
 * in the kernel's file.
 */

/** Stages of Python runtime start-up, in order. */
export type PythonLoadStage = 'fetch' | 'compile' | 'stdlib' | 'ready';

/** Status of the Python runtime. */
export type PythonStatus = 'idle' | 'loading' | 'ready' | 'busy' | 'restarting' | 'error';

/** The runtime pool as the PyodideRuntime widget shows it (see the `python:pool` event). */
export interface PythonPoolState {
  /** Most runtimes serving sessions at once (`poolSize`). */
  size: number;
  /** Runtimes started for sessions: each bound to one session, or a warm spare no session has used. */
  workers: number;
  /** Of `workers`, the warm spares (`poolSpares`): started and ready, never used, for the next new session. */
  spares: number;
  /** Of `workers`, those running code. */
  busy: number;
  /** Sessions holding a runtime (each its own: a runtime a session gives up is stopped, never reused). */
  sessions: number;
  /** Runs waiting for a runtime to become free. */
  queued: number;
  /** Most runs that may wait (`poolQueueLimit`); one more gets `RUNTIME_BUSY`. */
  queueLimit: number;
  /** Runs finished in session runtimes so far (the shared runtime counts its own: `executions`). */
  runs: number;
}

declare module '../kernel/events.ts' {
  interface ArmatureEvents {
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
    /** A package was installed into the Python runtime. */
    'python:package-installed': { name: string; version: string };
  }
}
