import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import type { PyodideRuntimeApi } from '../pyodide-runtime/contract.ts';
import { createPythonTool } from './python-tool.ts';
import type { PythonToolApi } from './python-tool-types.ts';

export type { PythonToolApi, PythonToolStats } from './python-tool-types.ts';

/** Its options' schema: boot checks `config.PythonTool` against it (docs/configuration.md lists them). */
export { PythonToolConfigSchema as configSchema } from './config.ts';

/** PythonTool: Python as the agent's main tool, and every other tool callable from Python. */
export const metadata: UpgradeMetadata = {
  id: 'PythonTool',
  version: '1.0.0',
  description: 'execute_python and package tools, the call_tool bridge, generated Python tool modules and skills.',
  dependencies: ['ToolRunner', 'PyodideRuntime'],
  blueprint: '0x000031',
  category: 'tools',
  widget: 'python-tool-widget',
};

export const factory: UpgradeModule<PythonToolApi>['factory'] = (deps, ctx) => {
  const { api, tools } = createPythonTool({
    runtime: deps.PyodideRuntime as PyodideRuntimeApi,
    runner: deps.ToolRunner as ToolRunnerApi,
    persona: ctx.persona,
    bus: ctx.bus,
    readyTimeoutMs: ctx.configNumber('readyTimeoutMs'),
    slowCallMs: ctx.configNumber('slowCallMs'),
  });
  return { api, tools, dispose: () => (deps.PyodideRuntime as PyodideRuntimeApi).setToolCallHandler(undefined) };
};
