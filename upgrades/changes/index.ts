import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import { createChanges } from './changes.ts';
import { CHANGES_AREA } from './lineage.ts';

export type { ChangesApi } from '../../src/contracts/change-contract.ts';

/** Changes: the one path every agent-made change takes, its history, and the approvals. */
export const metadata: UpgradeMetadata = {
  id: 'Changes',
  version: '1.0.0',
  description: 'Versions, gates, approves, activates, records and rolls back every change an agent makes to the system.',
  dependencies: ['Workspace'],
  blueprint: '0x000080',
  category: 'agent',
  widget: 'changes-widget',
};

/** Options (`boot({ config: { Changes: {...} } })`): `maxTestValueChars` (default 4000). */
export const factory: UpgradeModule<ChangesApi>['factory'] = (deps, ctx) => {
  const workspace = deps.Workspace as WorkspaceApi;
  const api = createChanges({
    area: workspace.area(CHANGES_AREA),
    bus: ctx.bus,
    persona: ctx.persona,
    maxTestValueChars: typeof ctx.config.maxTestValueChars === 'number' ? ctx.config.maxTestValueChars : undefined,
    safe: ctx.safe,
  });
  if (api.problems.length) console.warn(`[changes] skipped unreadable lineage lines: ${api.problems.slice(0, 5).join('; ')}`);
  return { api, dispose: () => api.dispose() };
};
