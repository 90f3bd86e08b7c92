import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { isNode } from '../../src/platform/detect.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import type { AgentApi, RecordedExample } from '../../src/contracts/agent-contract.ts';
import { createAgent, type PythonForAgent } from './agent.ts';
import { browserKeys, environmentKeys } from './keys.ts';
import type { ModelFactory } from './providers.ts';
import { browserSettings, memorySettings } from './settings.ts';
import { RUNS_AREA, TranscriptStore } from './transcript.ts';
import { createRecordingLoader, listExamples, localFiles } from './replay/recordings.ts';
import { agentTools } from './run-tools.ts';
import { RunsElsewhere } from './runs-elsewhere.ts';
import { agentSnapshot } from './snapshot.ts';

export type { AgentApi, AgentSettings, RecordedExample, Recording, RecordingSink, ReplayReport, RunOptions, RunResult, RunSummary, TranscriptEntry } from '../../src/contracts/agent-contract.ts';

/** Its options' schema: boot checks `config.Agent` against it (docs/configuration.md lists them). */
export { AgentConfigSchema as configSchema } from './config.ts';

/** Agent: an LLM loop over the ToolRunner, streamed as events, with a transcript per run. */
export const metadata: UpgradeMetadata = {
  id: 'Agent',
  version: '1.0.0',
  description: 'Runs a goal as a loop of model steps over the ToolRunner, streams it, and keeps a transcript per run.',
  dependencies: ['ToolRunner', 'Workspace'],
  optionalDependencies: ['PythonTool'],
  blueprint: '0x000050',
  category: 'agent',
  widget: 'agent-widget',
};

/**
 * Options (`boot({ config: { Agent: {...} } })`): `maxRetries` (default 2), `maxResultChars`
 * (default 20000), `env` (Node: where keys are read; default `process.env`), `modelFactory`
 * (tests and benchmarks: a function making the model; default the provider library's).
 */
export const factory: UpgradeModule<AgentApi>['factory'] = (deps, ctx) => {
  const node = isNode();
  // Keys: environment variables in Node; this browser's storage on the dashboard (never the workspace).
  const keys = node
    ? environmentKeys((ctx.config.env as Record<string, string | undefined> | undefined) ?? process.env)
    : browserKeys(globalThis.localStorage);
  const workspace = deps.Workspace as WorkspaceApi;
  const loadRecording = createRecordingLoader(ctx.platform.project, localFiles());
  const transcripts = new TranscriptStore(workspace.area(RUNS_AREA));
  const api = createAgent({
    runner: deps.ToolRunner as ToolRunnerApi,
    bus: ctx.bus,
    persona: ctx.persona,
    transcripts,
    ...(ctx.processId === undefined ? {} : { process: ctx.processId }),
    keys,
    settings: node ? memorySettings() : browserSettings(globalThis.localStorage),
    python: deps.PythonTool as PythonForAgent | undefined,
    modelFactory: typeof ctx.config.modelFactory === 'function' ? (ctx.config.modelFactory as ModelFactory) : undefined,
    maxRetries: ctx.configNumber('maxRetries'),
    maxResultChars: ctx.configNumber('maxResultChars'),
    loadRecording,
    examples: () => listExamples(ctx.platform.project, loadRecording),
    workspace,
  });
  // The panel lists the recorded examples it can replay: read once, shown when read.
  let examples: RecordedExample[] = [];
  void api
    .examples()
    .then((list) => {
      examples = list;
      if (list.length) ctx.statusChanged();
    })
    .catch(() => undefined);
  // The panel's runs and settings change with these.
  for (const t of ['agent:run-started', 'agent:step-finished', 'agent:run-finished', 'agent:settings-changed'] as const) ctx.bus.on(t, () => ctx.statusChanged());
  // Another process's runs, once the workspace has read them from the store.
  ctx.bus.on('workspace:reloaded', ({ areas }) => {
    if (areas.includes(RUNS_AREA)) ctx.statusChanged();
  });
  return {
    api,
    // On a data folder other processes share, their runs are read and judged before list_runs and read_run answer.
    tools: agentTools(api, transcripts, ctx.platform.processes && new RunsElsewhere(ctx.platform.processes, () => workspace.reload(), ctx.processId)),
    status: () => agentSnapshot(api, examples),
    dispose: () => api.abort(),
  };
};
