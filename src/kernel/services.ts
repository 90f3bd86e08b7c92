/**
 * The service map: what each upgrade's id resolves to. `sys.resolve('Workspace')` is typed
 * `Promise<WorkspaceApi>` because the Workspace upgrade adds itself here, by module augmentation in
 * its own folder, the way upgrades add their events to `ArmatureEvents`:
 *
 * ```ts
 * declare module '../../src/kernel/services.ts' {
 *   interface ArmatureServices { Workspace: WorkspaceApi }
 * }
 * ```
 *
 * An upgrade of your own (a root's) adds itself the same way through the package:
 * `declare module 'armature' { interface ArmatureServices { Tally: TallyApi } }`. An id that is not
 * in the map still resolves, to `unknown` unless you name its type (`resolve<TallyApi>('Tally')`).
 */
import type { ToolRunnerApi } from './tool-contract.ts';

/** Every upgrade's API by its id. Upgrades add theirs by module augmentation (see the module comment). */
export interface ArmatureServices {
  ToolRunner: ToolRunnerApi;
}

/** The id of an upgrade whose API type is known. */
export type ServiceId = keyof ArmatureServices;
