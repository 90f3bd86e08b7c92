import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { clip } from '../../src/kernel/bounded.ts';
import { errorLine } from '../../src/kernel/errors.ts';
import type { ArmatureEvents } from '../../src/kernel/events.ts';
import { createToolRunner } from './tool-runner.ts';

/** Its options' schema: boot checks `config.ToolRunner` against it (docs/configuration.md lists them). */
export { ToolRunnerConfigSchema as configSchema } from './config.ts';

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

export const factory: UpgradeModule<ToolRunnerApi>['factory'] = (_deps, ctx) => {
  // The tools of modules that failed to load, so a call to one says why it is missing.
  const missing = new Map<string, { module: string; reason: string }>();
  const failed = (p: ArmatureEvents['module:failed']) => {
    if (p.parent) return;
    const reason = p.rootCause ? `because ${p.rootCause} failed` : errorLine(p.error);
    for (const name of p.tools ?? []) missing.set(name, { module: p.id, reason: clip(reason, 300) });
  };
  const loaded = ({ id }: { id: string }) => {
    for (const [name, m] of missing) if (m.module === id) missing.delete(name);
  };
  // Modules that failed before this one was made (a missing dependency) are in the history.
  for (const r of ctx.bus.history(['module:failed'])) failed(r.payload);
  const subs = [ctx.bus.on('module:failed', failed), ctx.bus.on('module:loaded', loaded)];
  return {
    api: createToolRunner({
      bus: ctx.bus,
      persona: ctx.persona,
      // Read like every upgrade's options: a value that is there but unusable fails the module, naming it.
      defaultTimeoutMs: ctx.configNumber('defaultTimeoutMs', 30_000),
      missingTool: (name) => missing.get(name),
    }),
    dispose: () => subs.forEach((s) => s.dispose()),
  };
};
