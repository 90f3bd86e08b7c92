/**
 * The PyodideRuntime upgrade's contract: its API and the shapes it answers in, as other upgrades
 * import them (never from the rooms inside). They are defined with the runtime in
 * `host/runtime-types.ts` and `host/runtime-options.ts`; the events it emits are in
 * `src/contracts/python-events.ts`.
 */
export type {
  BridgeCall,
  ExecuteOptions,
  ExecuteResult,
  InstallResult,
  PyodideRuntimeApi,
  RuntimeState,
  SyncOptions,
  SyncReport,
  ToolCallHandler,
  WorkspaceLike,
} from './host/runtime-types.ts';
export type { PoolOptions, PyodideRuntimeOptions } from './host/runtime-options.ts';
export type { PackageInfo } from './protocol/protocol.ts';

import type { PyodideRuntimeApi } from './host/runtime-types.ts';

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    PyodideRuntime: PyodideRuntimeApi;
  }
}
