import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { createBlueprintRegistry, loadBlueprints, type BlueprintRegistryApi } from './registry.ts';

export type { BlueprintRegistryApi, BlueprintSummary } from './registry.ts';
export type { Blueprint } from './front-matter.ts';

/** Blueprints: the design documents each upgrade is built from, readable by agents. */
export const metadata: UpgradeMetadata = {
  id: 'Blueprints',
  version: '1.0.0',
  description: 'Registry of the design documents (blueprints/*.md) each upgrade is built from.',
  dependencies: ['ToolRunner'],
  blueprint: '0x000015',
  category: 'knowledge',
  widget: 'blueprints-widget',
};

export const factory: UpgradeModule<BlueprintRegistryApi>['factory'] = async (_deps, ctx) => {
  const api = createBlueprintRegistry(await loadBlueprints(ctx.platform.project));
  return {
    api,
    tools: {
      list_blueprints: () => ({ blueprints: api.list() }),
      read_blueprint: (args) => api.get(String(args.id)),
    },
  };
};
