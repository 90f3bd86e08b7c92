import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import { createChanges } from './changes.ts';
import { LEGACY_AREA } from './legacy-import.ts';

export type { ChangesApi } from '../../src/contracts/change-contract.ts';

/** Its options' schema: boot checks `config.Changes` against it (docs/configuration.md lists them). */
export { ChangesConfigSchema as configSchema } from './config.ts';

/** Changes: the one path every agent-made change takes, its history, and the approvals. */
export const metadata: UpgradeMetadata = {
  id: 'Changes',
  version: '1.1.0',
  description: 'Versions, gates, approves, activates, records and rolls back every change an agent makes to the system, shared live by every process on the data folder.',
  dependencies: ['Workspace'],
  blueprint: '0x000080',
  category: 'agent',
  widget: 'changes-widget',
};

/**
 * Options (`boot({ config: { Changes: {...} } })`): `maxTestValueChars` (default 4000),
 * `maxPending` (changes of the persona waiting for a person at once; default 50).
 */
export const factory: UpgradeModule<ChangesApi>['factory'] = async (deps, ctx) => {
  const workspace = deps.Workspace as WorkspaceApi;
  const store = await ctx.platform.openShared('changes');
  const api = await createChanges({
    store,
    legacy: workspace.area(LEGACY_AREA),
    bus: ctx.bus,
    persona: ctx.persona,
    maxTestValueChars: ctx.configNumber('maxTestValueChars', 4000),
    maxPending: ctx.configNumber('maxPending', 50),
    safe: ctx.safe,
  });
  return {
    api,
    dispose: async () => {
      await api.dispose();
      await store.close();
    },
  };
};
