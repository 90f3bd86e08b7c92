import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import { runtimeOptionsFromConfig, type PyodideRuntimeConfig } from './config-options.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from './runtime.ts';

export type { ExecuteResult, PyodideRuntimeApi, RuntimeState, SyncReport } from './runtime.ts';

/** Its options' schema: boot checks `config.PyodideRuntime` against it (docs/configuration.md lists them). */
export { PyodideRuntimeConfigSchema as configSchema } from './config-schema.ts';

/** PyodideRuntime: Python in a worker that always comes back. */
export const metadata: UpgradeMetadata = {
  id: 'PyodideRuntime',
  version: '1.0.0',
  description: 'Runs Python (Pyodide) in a dedicated worker with streamed output, timeouts that always recover, offline packages and workspace sync.',
  dependencies: [],
  optionalDependencies: ['Workspace'],
  blueprint: '0x000030',
  category: 'runtime',
  widget: 'pyodide-runtime-widget',
};

/**
 * Options from `boot({ config: { PyodideRuntime: {...} } })`: every {@link PyodideRuntimeOptions}
 * field, plus `autoStart` (start Python while the rest boots; default true). The start-up
 * snapshot is kept in the platform's `pyodide-snapshot` cache unless `snapshotCache` says otherwise,
 * and (Node) downloaded packages in its `pyodide-packages` folder unless `packageCacheDir` does.
 * `network` defaults to the persona's. The pool's options (`poolSize`, `poolIdleMs`,
 * `poolQueueLimit`) size the runtimes that serve sessions; see `host/runtime-options.ts`.
 */
export const factory: UpgradeModule<PyodideRuntimeApi>['factory'] = (deps, ctx) => {
  const { autoStart, options } = runtimeOptionsFromConfig(ctx.config as PyodideRuntimeConfig, ctx.platform);
  const workspace = deps.Workspace as WorkspaceApi | undefined;
  // Python's fetch reaches what the persona allows (an explicit option overrides it, e.g. in tests).
  const network = options.network ?? ctx.persona.network;
  const runtime = createPyodideRuntime({ ...options, network }, { emit: (type, payload) => ctx.bus.emit(type, payload), workspace });
  return {
    api: runtime,
    init() {
      // A session that ended (an MCP client left, ...) gives its runtime back to the pool at once.
      ctx.bus.on('session:ended', ({ session }) => void runtime.endSession(session).catch(() => undefined));
      // Start-up takes seconds: it runs in the background and shows progress; callers wait for it.
      if (autoStart) void runtime.init().catch(() => undefined);
    },
    dispose: () => runtime.dispose(),
  };
};
