import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { createToolRunner } from './tool-runner.ts';

/** ToolRunner: the one place every tool call goes through. */
export const metadata: UpgradeMetadata = {
  id: 'ToolRunner',
  version: '1.0.0',
  description: 'Validates, authorizes, times out, measures and runs every tool call.',
  dependencies: [],
  blueprint: '0x000012',
  category: 'core',
  widget: 'tool-runner-widget',
};

export const factory: UpgradeModule<ToolRunnerApi>['factory'] = (_deps, ctx) => ({
  api: createToolRunner({
    bus: ctx.bus,
    persona: ctx.persona,
    defaultTimeoutMs: typeof ctx.config.defaultTimeoutMs === 'number' ? ctx.config.defaultTimeoutMs : undefined,
  }),
});
