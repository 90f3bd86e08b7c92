import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { createWorkspace, workspaceTools, type WorkspaceApi } from './workspace.ts';
import { workspaceSnapshot } from './snapshot.ts';

export type { FileInfo, WorkspaceApi } from './workspace.ts';

/** Its options' schema: boot checks `config.Workspace` against it (docs/configuration.md lists them). */
export { WorkspaceConfigSchema as configSchema } from './config.ts';

/** Workspace: the agent's durable file system. */
export const metadata: UpgradeMetadata = {
  id: 'Workspace',
  version: '1.0.0',
  description: 'A file system for agents, in memory and persisted to IndexedDB (browser) or a directory (Node).',
  dependencies: ['ToolRunner'],
  blueprint: '0x000014',
  category: 'storage',
  widget: 'workspace-widget',
};

export const factory: UpgradeModule<WorkspaceApi>['factory'] = async (_deps, ctx) => {
  const store = await ctx.platform.openStore('workspace');
  const api = await createWorkspace({ store, bus: ctx.bus, maxFileBytes: ctx.configNumber('maxFileBytes'), maxTotalBytes: ctx.configNumber('maxTotalBytes') });
  const changed = () => ctx.statusChanged();
  const subs = [ctx.bus.on('workspace:written', changed), ctx.bus.on('workspace:deleted', changed), ctx.bus.on('workspace:reloaded', changed)];
  return {
    api,
    tools: workspaceTools(api),
    status: () => workspaceSnapshot(api),
    dispose: () => {
      for (const s of subs) s.dispose();
      return store.close();
    },
  };
};
