import type { PythonLoadStage, PythonPoolState, PythonStatus } from '../../src/contracts/python-events.ts';
import type { RuntimeState } from './host/runtime-types.ts';

/** Start-up progress as the card shows it (the latest `python:progress`). */
export interface StartupProgress {
  stage: PythonLoadStage;
  percent: number;
  message?: string;
}

/** What the PyodideRuntime card shows: the shared runtime's state, the pool and the start-up progress. */
export interface PyodideRuntimeSnapshot {
  status: PythonStatus;
  pythonVersion?: string;
  pyodideVersion?: string;
  /** How `call_tool` reaches the host: `shared-memory`, `jspi` or `async`. */
  transport?: string;
  /** Packages installed beyond the standard library. */
  packages: number;
  executions: number;
  restarts: number;
  /** Bytes of the WebAssembly heap, when measurable. */
  memoryBytes?: number;
  /** Whether the worker was restored from the start-up snapshot. */
  fromSnapshot?: boolean;
  /** The last error, without its traceback. */
  lastError?: { type: string; message: string };
  pool?: PythonPoolState;
  /** The latest start-up progress, once start-up began. */
  progress?: StartupProgress;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The PyodideRuntime snapshot of `state` and the latest `progress`. */
export function pyodideRuntimeSnapshot(state: RuntimeState, progress: StartupProgress | undefined): PyodideRuntimeSnapshot {
  const { status, pythonVersion, pyodideVersion, transport, executions, restarts, memoryBytes, fromSnapshot, lastError, pool } = state;
  return {
    status,
    ...(pythonVersion ? { pythonVersion } : {}),
    ...(pyodideVersion ? { pyodideVersion } : {}),
    ...(transport ? { transport } : {}),
    packages: state.packages.length,
    executions,
    restarts,
    ...(memoryBytes === undefined ? {} : { memoryBytes }),
    ...(fromSnapshot === undefined ? {} : { fromSnapshot }),
    ...(lastError ? { lastError: { type: lastError.type, message: clip(lastError.message, 2000) } } : {}),
    ...(pool ? { pool: { ...pool } } : {}),
    ...(progress ? { progress: { ...progress } } : {}),
  };
}
