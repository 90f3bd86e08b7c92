/**
 * `armature agent`'s arguments: the goal and the options, checked before anything boots (bad usage
 * exits 2 with the reason). With `--replay` the goal may be left out: the recording has its goals.
 */
import { quote } from '../kernel/bounded.ts';
import { PROVIDERS, RUN_ID_PATTERN, type AgentModelRef } from '../contracts/agent-contract.ts';

/** Options of `armature agent`, as parsed. */
export interface AgentCommandOptions {
  model?: string;
  baseUrl?: string;
  maxSteps?: string;
  /** The run to go on with (`--continue RUN`). */
  continue?: string;
  /** Where to record the run (`--record FILE`). */
  record?: string;
  /** The recording to play back (`--replay FILE`). */
  replay?: string;
  /** Approve the replayed run's pending changes as they come (`--approve`). */
  approve?: boolean;
  json: boolean;
}

/** Help lines of the command, for the CLI's usage text. */
export const AGENT_USAGE = `  armature agent [--persona ID] [--model PROVIDER:MODEL] [--base-url URL] [--max-steps N] [--json] "GOAL"
                                                  run the agent on a goal, streaming its answer
  armature agent --continue RUN "FOLLOW-UP"       go on with a run: the model gets its earlier messages
  armature agent --record FILE "GOAL"             ... and keep the model's side of the run in FILE
  armature agent --replay FILE|examples/NAME [--approve]
                                                  play a recorded run back: no model, no key`;

/** Help lines of the command's options. */
export const AGENT_OPTIONS_USAGE = `  --model P:M    agent: provider (openai-compatible, openai, anthropic, google) and model,
                 e.g. openai-compatible:qwen2.5 (default: the persona's "model")
  --base-url URL agent: the server's URL, e.g. http://127.0.0.1:11434/v1 (Ollama)
  --max-steps N  agent: model steps before it stops (default: the persona's, else 8)
  --continue RUN agent: a follow-up of run RUN (armature runs lists them)
  --record FILE  agent: record the model's requests and answers (JSON Lines); with --continue,
                 adds the follow-up to the FILE that recorded RUN
  --replay FILE  agent: answer from a recording instead of a model (the goals are the recorded
                 ones); stops at the first tool result that differs from the recorded one
  --approve      agent --replay: approve the run's pending changes between turns (you, as you
                 run it; without it the replay waits for armature approve)`;

/** What `armature agent` runs, once its arguments are checked. */
export interface AgentArgs {
  /** The goal; with `--replay`, only when given (else the recorded ones). */
  goal: string | undefined;
  model?: Partial<AgentModelRef>;
  maxSteps?: number;
  /** The run this goal follows up (`--continue`). */
  runId?: string;
  record?: string;
  replay?: string;
  approve?: boolean;
}

/** Bad usage of the command (exit code 2). */
export class AgentUsageError extends Error {}

/** Checks the goal and the options before anything boots; throws {@link AgentUsageError}. */
export function parseAgentArgs(rest: readonly string[], o: AgentCommandOptions): AgentArgs {
  if (o.replay === undefined && (rest.length === 0 || !rest.join('').trim())) throw new AgentUsageError('agent needs a goal: armature agent "Summarise notes/plan.md" (or watch a recorded run: armature agent --replay examples/sum-files)');
  if (rest.length > 1) throw new AgentUsageError(`agent takes one goal; quote it, got ${rest.length} words: ${rest.map((r) => quote(r)).join(' ')}`);
  const model: Partial<AgentModelRef> = {};
  if (o.model !== undefined) {
    const i = o.model.indexOf(':');
    const provider = o.model.slice(0, i);
    if (i < 1 || i === o.model.length - 1 || !(PROVIDERS as readonly string[]).includes(provider)) {
      throw new AgentUsageError(`--model takes PROVIDER:MODEL with PROVIDER one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(o.model)}`);
    }
    model.provider = provider as AgentModelRef['provider'];
    model.model = o.model.slice(i + 1);
  }
  if (o.baseUrl !== undefined) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(o.baseUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new AgentUsageError(`--base-url takes an http(s) URL such as http://127.0.0.1:11434/v1, got ${JSON.stringify(o.baseUrl)}`);
    model.baseURL = o.baseUrl;
  }
  let maxSteps: number | undefined;
  if (o.maxSteps !== undefined) {
    maxSteps = Number(o.maxSteps);
    if (!/^\d+$/.test(o.maxSteps) || maxSteps < 1 || maxSteps > 100) throw new AgentUsageError(`--max-steps takes a whole number from 1 to 100, got ${JSON.stringify(o.maxSteps)}`);
  }
  if (o.continue !== undefined && !RUN_ID_PATTERN.test(o.continue)) {
    throw new AgentUsageError(`--continue takes a run id such as run-20260101-120000-a1b2c3 (armature runs lists them), got ${quote(o.continue)}`);
  }
  if (o.replay !== undefined && Object.keys(model).length) throw new AgentUsageError('--replay answers from its recording: leave out --model and --base-url');
  if (o.approve && o.replay === undefined) throw new AgentUsageError('--approve applies to agent --replay: a live run\'s changes are approved with armature approve ID');
  for (const [flag, v] of [['--record', o.record], ['--replay', o.replay]] as const) if (v !== undefined && !v.trim()) throw new AgentUsageError(`${flag} takes a file name`);
  return {
    goal: rest[0]?.trim() ? rest[0] : undefined,
    ...(Object.keys(model).length ? { model } : {}),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(o.continue === undefined ? {} : { runId: o.continue }),
    ...(o.record === undefined ? {} : { record: o.record }),
    ...(o.replay === undefined ? {} : { replay: o.replay }),
    ...(o.approve ? { approve: true } : {}),
  };
}

