import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import { describeError } from '../../src/kernel/errors.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { PyodideRuntimeApi } from '../pyodide-runtime/contract.ts';
import type { PythonToolApi } from '../python-tool/python-tool-types.ts';
import { madeToolHandlers } from './made-tools.ts';
import { createToolKind, partId, type LiveToolInfo } from './tool-kind.ts';

export type { LiveToolInfo } from './tool-kind.ts';
export type { MadeToolContent } from './tool-spec.ts';

/** The MadeTools API: the agent-made tools in force. */
export interface MadeToolsApi {
  /** Each tool in force: name, language, version, change, canary state, and its calls and errors so far. */
  live(): (LiveToolInfo & { calls: number; errors: number })[];
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    MadeTools: MadeToolsApi;
  }
}

/** Its options' schema: boot checks `config.MadeTools` against it (docs/configuration.md lists them). */
export { MadeToolsConfigSchema as configSchema } from './config.ts';

/** MadeTools: agents make their own tools — gated, versioned, hot, reversible, confined. */
export const metadata: UpgradeMetadata = {
  id: 'MadeTools',
  version: '1.0.0',
  description: 'Tools an agent writes itself (Python or JavaScript), tested in their confinement before they run, versioned and reversible.',
  dependencies: ['ToolRunner', 'Changes'],
  optionalDependencies: ['PythonTool', 'PyodideRuntime'],
  blueprint: '0x000081',
  category: 'tools',
  widget: 'made-tools-widget',
};

/**
 * Options (`boot({ config: { MadeTools: {...} } })`): `testTimeoutMs` (one test's limit; default
 * 5000), `callTimeoutMs` (one real call's limit; default 30000), `canaryCalls` (first calls the
 * canary watches; default 10), `canaryFailureShare` (share of them that may fail; default 0.5).
 */
export const factory: UpgradeModule<MadeToolsApi>['factory'] = (deps, ctx) => {
  const changes = deps.Changes as ChangesApi;
  const runner = deps.ToolRunner as ToolRunnerApi;
  const pythonTool = deps.PythonTool as PythonToolApi | undefined;
  const runtime = deps.PyodideRuntime as PyodideRuntimeApi | undefined;
  const kind = createToolKind({
    runner,
    changes,
    bus: ctx.bus,
    persona: ctx.persona,
    parts: ctx.parts,
    ...(pythonTool && runtime ? { python: { tool: pythonTool, runtime } } : {}),
    network: ctx.persona.network ?? 'none',
    testTimeoutMs: ctx.configNumber('testTimeoutMs', 5000),
    callTimeoutMs: ctx.configNumber('callTimeoutMs', 30_000),
    canary: { calls: ctx.configNumber('canaryCalls', 10), share: ctx.configNumber('canaryFailureShare', 0.5) },
    log: (text) => console.warn(text),
  });
  const registration = changes.registerKind(kind);
  return {
    api: {
      live: () => {
        const stats = new Map(runner.getStats().map((st) => [st.name, st]));
        return kind.live().map((t) => ({ ...t, calls: stats.get(t.name)?.calls ?? 0, errors: stats.get(t.name)?.errors ?? 0 }));
      },
    },
    tools: madeToolHandlers({ changes, runner, persona: ctx.persona, live: () => kind.live() }),
    // The tools made before come back into force at boot; one that fails is reported and skipped.
    init: async () => {
      for (const f of await changes.restore('tool')) {
        ctx.parts.failed(partId(f.change.target), { ...f.error, message: `version ${f.change.version} of ${f.change.target} could not be loaded and was skipped: ${describeError(f.error.message)}` }, 0);
      }
      await kind.checkCanaries();
    },
    dispose: async () => {
      registration.dispose();
      await kind.dispose();
    },
  };
};
