/**
 * Armature's public entry, for Node and the browser.
 * `boot()` is the front door; the rest is for upgrades, tests and tools built on the kernel.
 *
 * @packageDocumentation
 */
export { boot } from './kernel/boot/boot.ts';
export type { ArmatureSystem, BootOptions } from './kernel/boot/boot.ts';
export { Container } from './kernel/container.ts';
export type { ContainerHooks, ModuleDefinition, ModuleInstance, ModuleState } from './kernel/container.ts';
export { createEventBus } from './kernel/event-bus.ts';
export type { EventBus, EventBusOptions, EventHandler, EventRecord, EventScope, EventSource } from './kernel/event-bus.ts';
export type { ArmatureEvents, ArmatureEventType, ToolCaller } from './kernel/events.ts';
export type { PythonLoadStage, PythonStatus } from './contracts/python-events.ts';
export type { AgentApi, AgentModelRef, AgentStopReason, AgentUsage, RunOptions, RunResult, RunSummary, TranscriptEntry } from './contracts/agent-contract.ts';
export {
  ArmatureError,
  ContainerDisposedError,
  DependencyCycleError,
  DependencyFailedError,
  DuplicateRegistrationError,
  ManifestError,
  MissingDependencyError,
  ModuleInitError,
  ToolManifestMismatchError,
  toErrorInfo,
} from './kernel/errors.ts';
export type { ErrorInfo } from './kernel/errors.ts';
export { MissingPeerError, OPTIONAL_PEERS } from './kernel/optional-peer.ts';
export type { OptionalPeer } from './kernel/optional-peer.ts';
export { DisposableStore, toDisposable } from './kernel/lifecycle.ts';
export type { Disposable } from './kernel/lifecycle.ts';
export { loadPersona, orderByDependencies } from './kernel/boot/loader.ts';
export type { ModuleReport, UpgradeImporter } from './kernel/boot/loader.ts';
export { readManifests } from './kernel/manifests.ts';
export type { DeclaredTool, Manifests } from './kernel/manifests.ts';
export type { Persona, ToolDeclaration, UpgradeEntry } from './kernel/manifest-schemas.ts';
export { TOOL_RUNNER_ID } from './kernel/tool-contract.ts';
export type { ExecuteOptions, ToolExecutor, ToolFailure, ToolResult, ToolRunnerApi, ToolStats, ToolSuccess } from './kernel/tool-contract.ts';
export type { EarlyStartContext, EarlyStartModule, ToolCallContext, ToolHandler, UpgradeContext, UpgradeInstance, UpgradeMetadata, UpgradeModule } from './kernel/upgrade.ts';
export { CHANGE_KINDS, CHANGES_ID } from './contracts/change-contract.ts';
export type {
  ChangeAction,
  ChangeCaller,
  ChangeFilter,
  ChangeKind,
  ChangeKindHandler,
  ChangeOptions,
  ChangePresentation,
  ChangeRecord,
  ChangesApi,
  ChangeStatus,
  ChangeTest,
  GateReport,
  LoadFailure,
  ProposedChange,
  ProposeRequest,
  SelfModificationPolicy,
  VersionInfo,
} from './contracts/change-contract.ts';
export { layeredProjectFiles, projectLayers } from './platform/platform.ts';
export type { BlobCache, FileStore, Platform, ProjectFiles, ProjectLayer, StoredFile } from './platform/platform.ts';
export { createBrowserPlatform } from './platform/browser/browser.ts';
export type { BrowserPlatformOptions, ProjectSnapshot } from './platform/browser/browser.ts';
export { AgentCodeError, createConfinedWorker, SandboxError } from './sandbox/index.ts';
export type { CallOptions, Capability, ConfinedWorker, ConfinedWorkerLimits, ConfinedWorkerOptions, ModuleDescription, NetworkPolicy, SandboxErrorCode } from './sandbox/index.ts';
export type { ModuleParts } from './kernel/upgrade.ts';
export { isValidToolName, NAMESPACED_TOOL_NAME } from './kernel/manifest-schemas.ts';
export { parseMcpConfig } from './kernel/manifests.ts';
export { McpServersSchema, namespaceOfServer } from './kernel/mcp-servers.ts';
export type { McpHttpServer as McpHttpServerSpec, McpServers, McpServerSpec, McpServersInput, McpStdioServer } from './kernel/mcp-servers.ts';
export { namespaceOf, namespaceOfTool } from './kernel/namespaces.ts';
export { decodeToolCall, formatTools, TOOL_FORMATS, ToolFormatError, toolNameFromProvider } from './tools-format/index.ts';
export type { FormatOptions, FormattableTool, FormattedTools, ToolAnnotations, ToolFormat } from './tools-format/index.ts';

// --- Types of the system: services by id, tools by name, options by upgrade (each augmentable) ---
export type { ArmatureServices, ServiceId } from './kernel/services.ts';
export type { ArmatureToolMap, KnownToolName, ToolArgs, ToolValue } from './kernel/tool-contract.ts';
export { checkConfig, countOption, customOption, numberOption, timeoutOption } from './kernel/config-schema.ts';
export type { ArmatureConfig, BootConfig, ConfigSchema } from './kernel/config-schema.ts';
