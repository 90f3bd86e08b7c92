import type { LanguageModel } from 'ai';
import { ArmatureError, toErrorInfo } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { ArmatureEvents, ArmatureEventType } from '../../src/kernel/events.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { ToolResult, ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import {
  DEFAULT_MAX_STEPS,
  type AgentApi,
  type AgentModelRef,
  type AgentSettings,
  type RunError,
  type RunOptions,
  type RunResult,
  type RunToolCall,
  type ToolMode,
  type TranscriptEntry,
  type RecordedExample,
  type ReplayReport,
} from '../../src/contracts/agent-contract.ts';
import { agentTracing } from '../../src/kernel/telemetry/agent-tracing.ts';
import type { RecordingLoader, ReplayWorkspace } from './replay/turn-model.ts';
import { KEY_VARIABLES, redactDeep, redactText, StreamRedactor, type KeySource } from './keys.ts';
import type { ToolCallOutcome, ToolCallRequest, TurnOptions, TurnOutcome } from './loop.ts';
import { toModelMessages } from './messages.ts';
import { describeModelError } from './model-errors.ts';
import { observedFetch } from './model-fetch.ts';
import { CODE_MODE_TOOLS, codeModePrompt, DEFAULT_MAX_RESULT_CHARS, directModePrompt, offeredTools, toModelResult, type OfferedTool } from '../../src/contracts/offered-tools.ts';
import { createLanguageModel, type ModelFactory } from './providers.ts';
import { parseModelRef, resolveModel, type SettingsStore } from './settings.ts';
export { resolveModel } from './settings.ts';
import { newRunId, type TranscriptStore } from './transcript.ts';

/** What the agent needs from PythonTool (optional: direct mode works without it). */
export interface PythonForAgent {
  getSystemPrompt(persona?: Persona): string;
  /** Interrupts the Python code of `session` (a run's session is its run id). */
  interrupt(session?: string): void;
}

/** Options of {@link createAgent}. */
export interface AgentOptions {
  runner: ToolRunnerApi;
  bus: Pick<EventSource, 'emit'>;
  /** The booted persona: its allow-list bounds every run. */
  persona: Persona;
  transcripts: TranscriptStore;
  keys: KeySource;
  settings: SettingsStore;
  /** Writes code mode's system prompt. Default: none (code mode then fails with `CODE_MODE_NEEDS_PYTHON`). */
  python?: PythonForAgent;
  /** Makes the model of a run. Default: the Vercel AI SDK provider for the model's `provider`. */
  modelFactory?: ModelFactory;
  /** Retries of a failed model request (429, 5xx), with the provider library's backoff. Default: 2. */
  maxRetries?: number;
  /** Longest tool result given back to the model, in characters of JSON. Default: 20000. */
  maxResultChars?: number;
  /** The fetch model requests go through. Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Reads the recording a `replay` model names. Default: none (a replay then fails with `REPLAY_UNAVAILABLE`). */
  loadRecording?: RecordingLoader;
  /** The recorded examples shipped with Armature. Default: none. */
  examples?: () => Promise<RecordedExample[]>;
  /** Where a replay writes the files its recording starts from. Default: none. */
  workspace?: ReplayWorkspace;
  /** This process's id among the processes on its data folder, recorded in each run's transcript. Default: none. */
  process?: string;
}

const ZERO = { inputTokens: 0, outputTokens: 0 };

type Emitter = <K extends ArmatureEventType>(type: K, payload: ArmatureEvents[K]) => void;

/** Everything one turn of a run needs, settled before it starts. */
interface TurnContext {
  runId: string;
  opts: RunOptions;
  persona: Persona;
  toolMode: ToolMode;
  maxSteps: number;
  model: Partial<AgentModelRef> | undefined;
  /** The transcript so far, ending with this turn's `started` entry. */
  history: TranscriptEntry[];
  firstStep: number;
  /** The keys to mask in everything the turn emits, records and returns. */
  secrets: string[];
  emit: Emitter;
  record(entry: TranscriptEntry): void;
  /** Filled by the turn. */
  toolCalls: RunToolCall[];
  /** Filled by the turn: the conversation as sent. */
  messages: unknown[];
  /** Filled by a replayed turn. */
  replay?: ReplayReport;
}

/**
 * The agent: runs a goal as a loop of model steps over the ToolRunner, streams it as `agent:*`
 * events, keeps one transcript per run and continues a run with a follow-up.
 */
export function createAgent(options: AgentOptions): AgentApi {
  const { runner, bus, persona: booted, transcripts, keys, settings } = options;
  const modelFactory = options.modelFactory ?? createLanguageModel;
  const maxRetries = options.maxRetries ?? 2;
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const active = new Map<string, { controller: AbortController; current?: string }>();
  const where = keys.storage;

  const allowedFor = (persona: Persona) => {
    const bootedNames = new Set(runner.getToolDeclarations().map((d) => d.name));
    return runner.getToolDeclarations({ persona }).filter((d) => bootedNames.has(d.name));
  };
  const prepare = (persona: Persona, toolMode: ToolMode): { system: string; tools: OfferedTool[] } => {
    const tools = offeredTools(toolMode, allowedFor(persona), persona);
    if (toolMode === 'direct') return { system: directModePrompt(persona, tools), tools };
    if (!options.python) {
      throw new ArmatureError('CODE_MODE_NEEDS_PYTHON', `[agent] code mode needs PythonTool, which persona ${persona.id} does not load`, {
        hint: `Add PythonTool to "upgrades" in modules/personas/${persona.id}.json, or set "toolMode": "direct" there.`,
      });
    }
    return { system: codeModePrompt(options.python.getSystemPrompt(persona)), tools };
  };

  const noModel = (persona: Persona, partial: Partial<AgentModelRef> | undefined): ArmatureError =>
    new ArmatureError('NO_MODEL', `[agent] no model is configured${partial?.provider ? ` (provider ${partial.provider} without a model name)` : ''} for persona ${persona.id}`, {
      hint:
        where === 'environment'
          ? `Pass --model openai-compatible:MODEL --base-url http://127.0.0.1:11434/v1 (a local server) or --model openai:gpt-4o-mini, or set "model" in modules/personas/${persona.id}.json. To watch a recorded run first, with no model and no key: armature agent --replay examples/sum-files (or examples/make-a-tool --approve, examples/build-an-upgrade --approve).`
          : 'Choose a provider and a model in the agent panel\'s settings: a local OpenAI-compatible server (Ollama, llama.cpp) needs its base URL, OpenAI, Anthropic and Google need a key. Or replay a recorded example (no model, no key): "Replay an example" below.',
    });
  const noKey = (model: AgentModelRef): ArmatureError =>
    new ArmatureError('NO_API_KEY', `[agent] no API key for ${model.provider}`, {
      hint: where === 'environment' ? `Set ${KEY_VARIABLES[model.provider]} in the environment.` : `Paste a ${model.provider} key in the agent panel's settings (it stays in this browser).`,
    });

  /** One turn: checks the set-up, makes the model, runs the loop; throws only set-up errors. */
  async function turn(t: TurnContext): Promise<TurnOutcome> {
    const { runId, opts, persona, toolMode, model, secrets, emit, record } = t;
    const entry = active.get(runId)!;
    if (!opts.goal.trim()) throw new ArmatureError('EMPTY_GOAL', '[agent] the goal is empty', { hint: 'Say what the agent should do.' });
    // The contract names the model by a few fields; it is an AI SDK model object.
    const given = opts.languageModel as LanguageModel | undefined;
    if (!given && (!model?.provider || !model.model)) throw noModel(persona, model);
    // A model given as an object (an MCP client's) needs no key; errors name it as a local one.
    const ref = given ? { provider: 'openai-compatible' as const, model: typeof given === 'string' ? given : given.modelId } : parseModelRef(model!);
    const replay = ref.provider === 'replay';
    const apiKey = given || replay ? undefined : (opts.apiKey ?? keys.get(ref.provider));
    if (!given && !apiKey && !replay && ref.provider !== 'openai-compatible') throw noKey(ref);
    const { system, tools } = prepare(persona, toolMode);
    const offered = new Set(tools.map((t) => t.name));
    let step = t.firstStep;
    const observed = observedFetch({
      ...(options.fetch ? { fetch: options.fetch } : {}),
      maxRetries,
      onFailure: (f) =>
        emit('agent:request-failed', { runId, step, status: f.status, message: `HTTP ${f.status}${f.statusText ? ` ${f.statusText}` : ''}`, attempt: f.attempt, willRetry: f.willRetry }),
    });
    const turnIndex = t.history.filter((e) => e.type === 'started').length - 1;
    const notes = { notes: [] as string[] };
    const { turnModel } = await import('./replay/turn-model.ts');
    const made = await turnModel({
      ref,
      turn: turnIndex,
      runId,
      goal: opts.goal,
      persona: persona.id,
      toolMode,
      make: async () => given ?? (await modelFactory(ref, { ...(apiKey ? { apiKey } : {}), fetch: observed.fetch })),
      ...(options.loadRecording ? { loadRecording: options.loadRecording } : {}),
      ...(options.workspace ? { workspace: options.workspace } : {}),
      ...(opts.record ? { record: opts.record } : {}),
      mask: (v) => redactDeep(v, secrets),
      maskStream: () => new StreamRedactor(secrets),
      step: () => step,
      notes,
    });
    const languageModel = made.model;
    if (made.recording) t.replay = { recording: made.recording.source, turn: turnIndex + 1, turns: made.recording.turns.length, notes: notes.notes };
    const { runTurn } = await import('./loop.ts');
    const messages = toModelMessages(t.history);
    // A key the provider echoes may arrive split across pieces: masked across them, per step.
    let text = new StreamRedactor(secrets);
    const showText = (s: number, delta: string) => delta && emit('agent:text-delta', { runId, step: s, delta });
    const outcome = await runTurn({
      model: languageModel,
      system,
      messages,
      tools,
      // A replay takes the steps its recording took (one more asks beyond it, and diverges saying so).
      maxSteps: made.recording ? made.recording.turns[turnIndex]!.steps.length + 1 : t.maxSteps,
      firstStep: t.firstStep,
      // A replay has no server to ask again.
      maxRetries: replay ? 0 : maxRetries,
      signal: entry.controller.signal,
      onStepStart: (s) => {
        step = s;
        observed.resetAttempts();
      },
      onTextDelta: (s, delta) => showText(s, text.push(delta)),
      onTextEnd: (s) => {
        showText(s, text.flush());
        text = new StreamRedactor(secrets);
      },
      onAssistant: (s, a) => record({ type: 'assistant', at: Date.now(), step: s, text: a.text, message: a.message, finishReason: a.finishReason, usage: a.usage }),
      onStepFinished: (s, f) => emit('agent:step-finished', { runId, step: s, finishReason: f.finishReason, usage: f.usage, toolCalls: f.toolCalls }),
      describeError: (e) => describeModelError(e, { model: ref, keyStorage: where, secrets }),
      ...(agentTracing() ? { telemetry: agentTracing()!.modelTelemetry as TurnOptions['telemetry'] } : {}),
      executeTool: async (call: ToolCallRequest): Promise<ToolCallOutcome> => {
        // The run id, step and model's id make the call id unique even when a model repeats its ids.
        // A key the provider echoes into the arguments is masked before anything sees them: the
        // tool runs with the masked value, so it never reaches its events, output, stores or files.
        const name = redactText(call.name, secrets);
        const args = redactDeep(call.args, secrets);
        const toolCallId = redactText(call.toolCallId, secrets);
        const callId = `${runId}/${call.step}/${toolCallId}`;
        const pythonRunId = name === 'execute_python' ? callId : undefined;
        emit('agent:tool-called', { runId, step: call.step, toolCallId, name, args, ...(pythonRunId ? { pythonRunId } : {}) });
        entry.current = name;
        const result: ToolResult =
          !offered.has(name) && runner.hasTool(name)
            ? notOffered(name, toolMode)
            : // The run is its own session: its Python globals are its own, apart from other runs' and clients'.
              await runner.executeTool(name, args, { caller: 'agent', callId, session: runId });
        entry.current = undefined;
        const modelResult = redactDeep(toModelResult(name, result, maxResultChars), secrets);
        record({ type: 'tool', at: Date.now(), step: call.step, toolCallId, name, args, ok: result.ok, durationMs: result.durationMs, result: modelResult, ...(pythonRunId ? { pythonRunId } : {}) });
        emit('agent:tool-finished', { runId, step: call.step, toolCallId, name, ok: result.ok, durationMs: result.durationMs, result: modelResult });
        t.toolCalls.push({ step: call.step, toolCallId, name, args, ok: result.ok, durationMs: result.durationMs, result: modelResult });
        return { ok: result.ok, result: modelResult };
      },
    });
    t.messages.push(...redactDeep(messages, secrets));
    return outcome;
  }

  const api: AgentApi = {
    async run(opts) {
      const continued = opts.runId !== undefined;
      const runId = opts.runId ?? newRunId();
      const refuse = (code: string, message: string, hint: string): RunResult => ({ runId, reason: 'error', steps: 0, usage: ZERO, error: { code, message, hint }, toolCalls: [], messages: [] });
      let prior: TranscriptEntry[] = [];
      if (continued) {
        if (active.has(runId)) return refuse('RUN_BUSY', `[agent] run ${runId} is still running`, 'Wait for it to finish, or stop it, then send the follow-up.');
        try {
          const found = transcripts.read(runId);
          if (!found) return refuse('RUN_NOT_FOUND', `[agent] no run ${JSON.stringify(runId)}`, 'List the runs with list_runs, or start a new run without a run id.');
          prior = found;
        } catch (e) {
          const info = toErrorInfo(e);
          return refuse(info.code, info.message, (e as ArmatureError).hint ?? 'Pass a run id from list_runs.');
        }
      }
      const persona = opts.persona ?? booted;
      const toolMode = opts.toolMode ?? persona.toolMode ?? 'code';
      const maxSteps = opts.maxSteps ?? persona.maxSteps ?? DEFAULT_MAX_STEPS;
      const model = resolveModel(opts.model, settings.load(), persona.model);
      const secrets = [opts.apiKey, model?.provider ? keys.get(model.provider as AgentModelRef['provider']) : undefined].filter((s): s is string => !!s);
      const emit: Emitter = (type, payload) => {
        try {
          bus.emit(type, redactDeep(payload, secrets));
        } catch {
          // The module was disposed mid-run (its bus scope refuses): nobody listens any more.
        }
      };
      const record = (e: TranscriptEntry) => transcripts.append(runId, redactDeep(e, secrets));
      const controller = new AbortController();
      if (opts.signal?.aborted) controller.abort();
      const onAbort = () => api.abort(runId);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      active.set(runId, { controller });
      const modelRef = !opts.languageModel && model?.provider && model.model ? (model as AgentModelRef) : undefined;
      const firstStep = prior.filter((e) => e.type === 'assistant').reduce((n, e) => Math.max(n, (e as { step: number }).step), 0) + 1;
      const started: TranscriptEntry = { type: 'started', at: Date.now(), runId, goal: opts.goal, persona: persona.id, ...(options.process ? { process: options.process } : {}), ...(modelRef ? { model: modelRef } : {}), toolMode, maxSteps, continued };
      record(started);
      emit('agent:run-started', { runId, goal: opts.goal, persona: persona.id, ...(modelRef ? { model: modelRef } : {}), toolMode, maxSteps, continued });
      try {
        opts.onStarted?.(runId);
      } catch {
        // The caller's own affair: the run goes on.
      }
      const toolCalls: RunToolCall[] = [];
      const messages: unknown[] = [];
      let outcome: TurnOutcome;
      const context: TurnContext = { runId, opts, persona, toolMode, maxSteps, model, history: [...prior, started], firstStep, secrets, emit, record, toolCalls, messages };
      // With OpenTelemetry configured, the turn runs inside the run's span: model and tool calls nest under it.
      const tracing = agentTracing();
      try {
        outcome = await (tracing ? tracing.run({ runId, persona: persona.id, ...(modelRef ? { model: modelRef } : {}), continued }, () => turn(context)) : turn(context));
      } catch (e) {
        const error: RunError = redactDeep({ ...toErrorInfo(e), ...((e as ArmatureError).hint ? { hint: (e as ArmatureError).hint } : {}) }, secrets);
        outcome = { reason: controller.signal.aborted ? 'aborted' : 'error', steps: 0, usage: ZERO, error };
      } finally {
        active.delete(runId);
        opts.signal?.removeEventListener('abort', onAbort);
      }
      record({ type: 'finished', at: Date.now(), reason: outcome.reason, steps: outcome.steps, usage: outcome.usage, ...(outcome.answer === undefined ? {} : { answer: outcome.answer }), ...(outcome.error ? { error: outcome.error } : {}) });
      try {
        await transcripts.flush();
      } catch (e) {
        outcome.error ??= { ...toErrorInfo(e), hint: 'The answer above is complete, but this run cannot be reopened or continued later.' };
      }
      emit('agent:run-finished', { runId, reason: outcome.reason, steps: outcome.steps, usage: outcome.usage, ...(outcome.answer === undefined ? {} : { answer: outcome.answer }), ...(outcome.error ? { error: outcome.error } : {}) });
      // Its Python runtime goes back to the pool now rather than after the idle time, so the next
      // run never waits for it; a follow-up is told its globals were dropped.
      emit('session:ended', { session: runId });
      return redactDeep({ runId, ...outcome, toolCalls, messages, ...(context.replay ? { replay: context.replay } : {}) }, secrets);
    },

    async complete(request) {
      const model = resolveModel(undefined, settings.load(), booted.model);
      if (!model?.provider || !model.model) throw noModel(booted, model);
      const ref = parseModelRef(model);
      const apiKey = keys.get(ref.provider);
      if (!apiKey && ref.provider !== 'openai-compatible') throw noKey(ref);
      const languageModel = await modelFactory(ref, { ...(apiKey ? { apiKey } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) });
      const { completeOnce } = await import('./complete.ts');
      try {
        return { ...(await completeOnce(languageModel, request, maxRetries)), model: `${ref.provider}:${ref.model}` };
      } catch (e) {
        const info = describeModelError(e, { model: ref, keyStorage: where, secrets: apiKey ? [apiKey] : [] });
        throw new ArmatureError(info.code, info.message, info.hint ? { hint: info.hint } : undefined);
      }
    },

    abort(runId) {
      for (const [id, run] of active) {
        if (runId !== undefined && id !== runId) continue;
        run.controller.abort();
        // A Python run does not listen to the signal: interrupt it, so the run stops now.
        if (run.current === 'execute_python') options.python?.interrupt(id);
      }
    },

    activeRuns: () => [...active.keys()],

    listRuns: (limit = 20) => transcripts.list(limit, new Set(active.keys())),

    readRun: (runId) => transcripts.read(runId),

    getSettings(): AgentSettings {
      const saved = settings.load();
      const personaModel = booted.model;
      const model = saved ?? personaModel;
      return {
        ...(model ? { model } : {}),
        source: saved ? 'settings' : personaModel ? 'persona' : 'none',
        ...(personaModel ? { personaModel } : {}),
        hasKey: !!(model && keys.get(model.provider)),
        keyStorage: keys.storage,
        ...(model && KEY_VARIABLES[model.provider] ? { keyVariable: KEY_VARIABLES[model.provider] } : {}),
      };
    },

    saveSettings(next) {
      const model = next.model ? parseModelRef(next.model) : undefined;
      if (next.apiKey !== undefined) {
        const provider = (model ?? settings.load() ?? booted.model)?.provider;
        if (!provider) throw new ArmatureError('NO_PROVIDER', '[agent] a key needs a provider', { hint: 'Choose the provider the key belongs to.' });
        keys.set(provider, next.apiKey);
      }
      if (next.model !== undefined) settings.save(model);
      const s = api.getSettings();
      bus.emit('agent:settings-changed', { ...(s.model ? { model: s.model } : {}), hasKey: s.hasKey });
    },

    async readRecording(name) {
      if (!options.loadRecording) throw new ArmatureError('REPLAY_UNAVAILABLE', '[agent] this system cannot read recordings');
      return options.loadRecording(name);
    },

    examples: async () => (options.examples ? options.examples() : []),

    describeRun(o = {}) {
      const persona = o.persona ?? booted;
      const toolMode = o.toolMode ?? persona.toolMode ?? 'code';
      const { system, tools } = prepare(persona, toolMode);
      return { system, tools: tools.map((t) => t.name), toolMode };
    },
  };
  return api;
}

function notOffered(name: string, mode: ToolMode): ToolResult {
  return {
    ok: false,
    error: { code: 'TOOL_NOT_OFFERED', message: `[agent] ${name} is not one of the tools offered in this run` },
    hint:
      mode === 'code' && !(CODE_MODE_TOOLS as readonly string[]).includes(name)
        ? `Call it from Python inside execute_python: call_tool("${name}", {...}).`
        : 'Use one of the tools you were given.',
    durationMs: 0,
  };
}
