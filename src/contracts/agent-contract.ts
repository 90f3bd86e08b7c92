/**
 * The contract of the Agent upgrade: its API (a run, its follow-ups, settings), the shapes a run
 * is reported in, and its events. A shared contract (`src/contracts/`): the CLI (`armature agent`)
 * drives the Agent through it, and src/ imports nothing from upgrades/; the events are declared at
 * the end by augmentation of the event map, as an upgrade declares its own.
 */
import type { ErrorInfo } from '../kernel/errors.ts';
import type { ProcessStatus } from '../kernel/journal/journal-layout.ts';
import type { Persona } from '../kernel/manifest-schemas.ts';
import type { Recording, RecordingSink } from './recording-format.ts';

export type { Recording, RecordingSink } from './recording-format.ts';

/** Why an agent run (or one turn of it) ended. */
export type AgentStopReason = 'answered' | 'max-steps' | 'aborted' | 'error';

/** Tokens a model read and wrote, summed over the steps counted. */
export interface AgentUsage {
  inputTokens: number;
  outputTokens: number;
}

/** Which model an agent run talks to (never its key). */
export interface AgentModelRef {
  /** `replay` plays a recording back (`model` names it, e.g. `examples/sum-files`): no network, no key. */
  provider: 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'replay';
  model: string;
  baseURL?: string;
}

/**
 * An AI SDK language model object (`LanguageModel` of `ai`, specification v3), named here by the
 * fields the Agent reads: the contract stays free of the AI SDK's types, so the package's users
 * type-check without them.
 */
export interface RunLanguageModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
}

/** The providers a persona, the CLI or the dashboard can name (`replay` plays a recording back). */
export const PROVIDERS = ['openai-compatible', 'openai', 'anthropic', 'google', 'replay'] as const;

/** One provider name. */
export type ProviderName = AgentModelRef['provider'];

/** How the model sees the tools: through Python (`code`) or each as its own schema (`direct`). */
export type ToolMode = 'code' | 'direct';

/** What a run id looks like: `run-20260101-120000-a1b2c3`. */
export const RUN_ID_PATTERN = /^run-[a-z0-9-]{1,80}$/;

/** Model steps per run when neither the call nor the persona says. */
export const DEFAULT_MAX_STEPS = 8;

/** Options of one {@link AgentApi.run}. */
export interface RunOptions {
  /** What the user asks (the first message of a run, or a follow-up). */
  goal: string;
  /** Continue this finished run with `goal` as a follow-up. Default: a new run. */
  runId?: string;
  /** Whose tools and prompt the run gets (never more than the booted persona allows). Default: the booted persona. */
  persona?: Persona;
  /** Overrides the saved settings and the persona's model, field by field. Default: none. */
  model?: Partial<AgentModelRef>;
  /** Model steps before the run stops with `max-steps`. Default: the persona's `maxSteps`, else 8. */
  maxSteps?: number;
  /** Default: the persona's `toolMode`, else `code`. */
  toolMode?: ToolMode;
  /** The provider key for this run only. Default: the key source (environment in Node, browser storage on the dashboard). */
  apiKey?: string;
  /**
   * The model object to run on instead of the configured one — e.g. an MCP client's model over
   * sampling (`armature mcp`'s `run_agent`); no key is needed, `model` and `apiKey` are ignored.
   * Default: the configured model.
   */
  languageModel?: RunLanguageModel;
  /** Aborts the run (same as {@link AgentApi.abort}). */
  signal?: AbortSignal;
  /** Records the model's side of this turn (a header first when it is the run's first turn). Default: not recorded. */
  record?: RecordingSink;
  /**
   * Called once the run has started (its `agent:run-started` went out), with its id, before the
   * first model request: what a caller that does not wait for the answer needs (the dashboard's
   * `start_run`). A run refused before it started (`RUN_BUSY`, `RUN_NOT_FOUND`) never calls it.
   */
  onStarted?(runId: string): void;
}

/** One tool call the model made, as the run result lists it. */
export interface RunToolCall {
  step: number;
  toolCallId: string;
  name: string;
  args: unknown;
  ok: boolean;
  durationMs: number;
  /** What the model was given back. */
  result: unknown;
}

/** A failure of a run, readable as is; never contains a key. */
export interface RunError extends ErrorInfo {
  /** What to do about it. */
  hint?: string;
}

/** How a run (or a follow-up turn) ended. */
export interface RunResult {
  runId: string;
  reason: AgentStopReason;
  /** Steps of this turn. */
  steps: number;
  /** Tokens of this turn. */
  usage: AgentUsage;
  /** The final text when `reason` is `answered`. */
  answer?: string;
  error?: RunError;
  /** The tool calls of this turn, in order. */
  toolCalls: RunToolCall[];
  /** The whole conversation sent to the model so far (system prompt excluded), provider-neutral. */
  messages: unknown[];
  /** When the model was a replay: the recording, this turn of its turns, and what changed without stopping it. */
  replay?: ReplayReport;
}

/** What a replayed turn reports besides its result. */
export interface ReplayReport {
  /** Where the recording was read from. */
  recording: string;
  /** This turn (1 for the first). */
  turn: number;
  /** Turns the recording holds. */
  turns: number;
  /** Changes found that do not stop a replay (the system prompt or the tools differ). */
  notes: string[];
}

/** A recorded example the agent can replay (`examples/<name>/recording.jsonl`). */
export interface RecordedExample {
  /** What a `replay` model names: `examples/<name>`. */
  name: string;
  title: string;
  description?: string;
  /** How it was made (e.g. "recorded with the scripted model"). */
  label?: string;
  /** The goal of each turn. */
  goals: string[];
  /** How the recorded run saw the tools: a replay runs the same way. */
  toolMode: ToolMode;
}

/** A past run, as the list shows it. */
export interface RunSummary {
  runId: string;
  /** The first goal. */
  goal: string;
  /** The persona it ran under. */
  persona: string;
  /** The process that ran it, when its system knew its process id (see `BootOptions.processId`). */
  process?: string;
  /**
   * Node: the process of its last turn (`process`, unless a follow-up ran elsewhere) as the data
   * folder says now — its pid, command and `state` (`live`, or how it ended: `exited`, `crashed`,
   * `lost`) —, while that process's folder is kept. A run whose last turn has no end is `running`
   * while that process lives, and `interrupted` once it died.
   */
  processInfo?: ProcessStatus;
  startedAt: number;
  updatedAt: number;
  /** Goals: the first and each follow-up. */
  turns: number;
  steps: number;
  usage: AgentUsage;
  /** How the last turn ended; `running` while it goes on (here, or in another live process); `interrupted` when it never finished (the page was reloaded, its process died). */
  reason: AgentStopReason | 'interrupted' | 'running';
  model?: AgentModelRef;
}

/** The effective model settings, as a form shows them. */
export interface AgentSettings {
  /** The model a run would use now, or undefined when none is configured. */
  model?: AgentModelRef;
  /** Where it comes from. */
  source: 'settings' | 'persona' | 'none';
  /** The persona's own model, if any. */
  personaModel?: AgentModelRef;
  /** Whether a key is available for the model's provider. */
  hasKey: boolean;
  /** Where keys come from: environment variables (Node) or this browser's storage (dashboard). */
  keyStorage: 'environment' | 'browser';
  /** The environment variable holding the key for the model's provider. */
  keyVariable?: string;
}

/** One message asked of the persona's model (see {@link AgentApi.complete}). */
export interface CompleteRequest {
  /** Default: none. */
  system?: string;
  /** The conversation, oldest first, as text. */
  messages: { role: 'user' | 'assistant'; text: string }[];
  /** Most tokens of the answer. */
  maxTokens: number;
  /** Default: the provider's. */
  temperature?: number;
  /** Default: none. */
  stopSequences?: string[];
  /** Default: none. */
  signal?: AbortSignal;
}

/** The model's answer to a {@link CompleteRequest}. */
export interface CompleteResult {
  text: string;
  /** `provider:model` of the model that answered. */
  model: string;
  /** `endTurn`, `maxTokens`, or the provider library's finish reason. */
  stopReason: string;
  usage: AgentUsage;
}

/** The Agent upgrade's API. */
export interface AgentApi {
  /** Runs (or continues) a goal to an answer, `maxSteps`, an abort or an error. Never rejects. */
  run(options: RunOptions): Promise<RunResult>;
  /**
   * One answer from the model a run would use (settings, else the persona's; its key), without
   * tools or a transcript — for MCP servers' sampling requests. Throws `NO_MODEL` / `NO_API_KEY`
   * with a hint, or the model's error made readable (`MODEL_REQUEST_FAILED` and friends).
   */
  complete(request: CompleteRequest): Promise<CompleteResult>;
  /** Aborts `runId`, or every active run. */
  abort(runId?: string): void;
  /** Runs in progress. */
  activeRuns(): string[];
  /** Past runs, newest first. Default limit: 20. */
  listRuns(limit?: number): RunSummary[];
  /** The transcript entries of `runId`, or undefined when there is no such run. */
  readRun(runId: string): TranscriptEntry[] | undefined;
  /** The effective model settings. */
  getSettings(): AgentSettings;
  /**
   * Saves the dashboard's model choice (`null` forgets it, so the persona's model applies; left out,
   * it stays) and, when given, the provider's key (browser storage only; `''` forgets it). In Node
   * keys come from the environment: passing one throws `KEYS_FROM_ENVIRONMENT`.
   */
  saveSettings(settings: { model?: AgentModelRef | null; apiKey?: string }): void;
  /** The system prompt and the tools a run would offer the model. */
  describeRun(options?: { persona?: Persona; toolMode?: ToolMode }): { system: string; tools: string[]; toolMode: ToolMode };
  /** Reads the recording a `replay` model names (`examples/sum-files`, a `.jsonl` file); rejects `RECORDING_NOT_FOUND` / `RECORDING_INVALID`. */
  readRecording(name: string): Promise<Recording>;
  /** The recorded examples that ship with Armature, to replay with no model and no key. */
  examples(): Promise<RecordedExample[]>;
}

/** One line of a run's transcript (`.armature/runs/<runId>.jsonl`). */
export type TranscriptEntry =
  | { type: 'started'; at: number; runId: string; goal: string; persona: string; process?: string; model?: AgentModelRef; toolMode: ToolMode; maxSteps: number; continued: boolean }
  | { type: 'assistant'; at: number; step: number; text: string; message: unknown; finishReason: string; usage: AgentUsage }
  | { type: 'tool'; at: number; step: number; toolCallId: string; name: string; args: unknown; ok: boolean; durationMs: number; result: unknown; pythonRunId?: string }
  | { type: 'finished'; at: number; reason: AgentStopReason; steps: number; usage: AgentUsage; answer?: string; error?: RunError };

declare module '../kernel/events.ts' {
  interface ArmatureEvents {
    /** An agent run started, or a finished run was continued with a follow-up (`continued`). */
    'agent:run-started': { runId: string; goal: string; persona: string; model?: AgentModelRef; toolMode: 'code' | 'direct'; maxSteps: number; continued: boolean };
    /** A piece of the assistant's text, as the model streamed it. */
    'agent:text-delta': { runId: string; step: number; delta: string };
    /** The model called a tool; `pythonRunId` tags the `python:stdout`/`python:stderr` of an `execute_python` call. */
    'agent:tool-called': { runId: string; step: number; toolCallId: string; name: string; args: unknown; pythonRunId?: string };
    /** A tool call of the model finished; `result` is what the model was given back. */
    'agent:tool-finished': { runId: string; step: number; toolCallId: string; name: string; ok: boolean; durationMs: number; result: unknown };
    /** A request to the model failed; `willRetry` when it is tried again (429, 5xx). */
    'agent:request-failed': { runId: string; step: number; status?: number; message: string; attempt: number; willRetry: boolean };
    /** One model step (one request and the tool calls it asked for) finished. */
    'agent:step-finished': { runId: string; step: number; finishReason: string; usage: AgentUsage; toolCalls: number };
    /** A run (or one follow-up turn) ended. `usage` sums the turn's steps. */
    'agent:run-finished': { runId: string; reason: AgentStopReason; steps: number; usage: AgentUsage; answer?: string; error?: ErrorInfo };
    /** The agent's model settings changed (the key itself is never in an event). */
    'agent:settings-changed': { model?: AgentModelRef; hasKey: boolean };
  }
}

declare module '../kernel/services.ts' {
  interface ArmatureServices {
    Agent: AgentApi;
  }
}
