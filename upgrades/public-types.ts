/**
 * The types of the `armature` package as its users see them: everything the public entry
 * (`src/index.ts`) exports, and the built-in upgrades' contracts — their APIs (what
 * `sys.resolve(id)` answers), their tools' values (`executeTool`), their options (`boot({ config })`).
 * `src/` never imports from `upgrades/`, so the published declarations are assembled here: this
 * file is the `types` of the `armature` entry, and importing it brings every upgrade's module
 * augmentation of `ArmatureServices`, `ArmatureToolMap` and `ArmatureConfig` into the program.
 * Nothing runs from it: the JavaScript of the entry is `src/index.ts`'s.
 *
 * @packageDocumentation
 */
export * from '../src/index.ts';
export type { FileInfo, ListFilesValue, ReadFileValue, SystemArea, WorkspaceApi } from './workspace/contract.ts';
export type { WorkspaceConfig } from './workspace/config.ts';
export type { ToolRunnerConfig } from './tool-runner/config.ts';
export type { Blueprint, BlueprintCandidate, BlueprintRegistryApi, BlueprintSummary } from './blueprints/contract.ts';
export type { BlueprintsConfig } from './blueprints/config.ts';
export type { ExecuteResult, PackageInfo, PyodideRuntimeApi, RuntimeState, SyncReport } from './pyodide-runtime/contract.ts';
export type { PyodideRuntimeBootConfig as PyodideRuntimeConfig } from './pyodide-runtime/config-schema.ts';
export type { ExecutePythonErrorDetails, ExecutePythonToolArgs, ExecutePythonValue, PythonToolApi, PythonToolStats } from './python-tool/python-tool-types.ts';
export type { PythonToolConfig } from './python-tool/config.ts';
export type { McpClientApi, McpServerState, McpServerStatus, SkippedTool } from './mcp-client/mcp-client-contract.ts';
export type { McpClientConfig } from './mcp-client/config.ts';
export type { AgentConfig } from './agent/config.ts';
export type { ChangesConfig } from './changes/config.ts';
export type { MadeToolsApi } from './made-tools/index.ts';
export type { MadeToolsConfig } from './made-tools/config.ts';
export type { PersonaOverlayApi } from './persona-overlay/contract.ts';
export type { PersonaOverlayConfig } from './persona-overlay/config.ts';
export type { MadeUpgradesApi } from './made-upgrades/index.ts';
export type { MadeUpgradesConfig } from './made-upgrades/config.ts';
