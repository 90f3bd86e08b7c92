import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import { runtimeOptionsFromConfig, type PyodideRuntimeConfig } from './config-options.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from './runtime.ts';
import { pyodideRuntimeSnapshot, type StartupProgress } from './snapshot.ts';

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
  /** The latest start-up progress, for the card. */
  let progress: StartupProgress | undefined;
  // What the card shows changes with the runtime's own events: each says so as it goes out.
  const CARD_EVENTS = new Set(['python:progress', 'python:state', 'python:pool', 'python:started', 'python:finished', 'python:package-installed']);
  const runtime = createPyodideRuntime(
    { ...options, network },
    {
      emit: (type, payload) => {
        if (type === 'python:progress') progress = payload as StartupProgress;
        ctx.bus.emit(type, payload);
        if (CARD_EVENTS.has(type)) ctx.statusChanged();
      },
      workspace,
    },
  );
  return {
    api: runtime,
    status: () => pyodideRuntimeSnapshot(runtime.getState(), progress),
    init() {
      // A session that ended (an MCP client left, ...) gives its runtime back to the pool at once.
      ctx.bus.on('session:ended', ({ session }) => void runtime.endSession(session).catch(() => undefined));
      // Start-up takes seconds: it runs in the background and shows progress; callers wait for it.
      if (autoStart) void runtime.init().catch(() => undefined);
    },
    dispose: () => runtime.dispose(),
  };
};
