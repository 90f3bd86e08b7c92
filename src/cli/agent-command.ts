import { quote } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { Disposable } from '../kernel/lifecycle.ts';
import type { AgentApi, AgentModelRef } from '../contracts/agent-contract.ts';
import { missingUpgrade } from './needed-upgrade.ts';

/** What `armature agent` needs from the CLI around it. */
export interface AgentCommandIo {
  out(text: string): void;
  err(text: string): void;
  write(stream: 'stdout' | 'stderr', text: string): void;
}

/** Options of `armature agent`, as parsed. */
export interface AgentCommandOptions {
  model?: string;
  baseUrl?: string;
  maxSteps?: string;
  json: boolean;
}

/** Help lines of the command, for the CLI's usage text. */
export const AGENT_USAGE = `  armature agent [--persona ID] [--model PROVIDER:MODEL] [--base-url URL] [--max-steps N] [--json] "GOAL"
                                                  run the agent on a goal, streaming its answer`;

/** Help lines of the command's options. */
export const AGENT_OPTIONS_USAGE = `  --model P:M    agent: provider (openai-compatible, openai, anthropic, google) and model,
                 e.g. openai-compatible:qwen2.5 (default: the persona's "model")
  --base-url URL agent: the server's URL, e.g. http://127.0.0.1:11434/v1 (Ollama)
  --max-steps N  agent: model steps before it stops (default: the persona's, else 8)`;

/** Bad usage of the command (exit code 2). */
export class AgentUsageError extends Error {}

const PROVIDERS = ['openai-compatible', 'openai', 'anthropic', 'google'] as const;

/** Checks the goal and the options before anything boots; throws {@link AgentUsageError}. */
export function parseAgentArgs(rest: readonly string[], o: AgentCommandOptions): { goal: string; model?: Partial<AgentModelRef>; maxSteps?: number } {
  if (rest.length === 0 || !rest.join('').trim()) throw new AgentUsageError('agent needs a goal: armature agent "Summarise notes/plan.md"');
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
  return { goal: rest[0]!, ...(Object.keys(model).length ? { model } : {}), ...(maxSteps === undefined ? {} : { maxSteps }) };
}

const short = (v: unknown, n = 100) => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n)}…` : one;
};

/**
 * `armature agent`: runs the goal, streaming the assistant's text to stdout and one line per tool
 * call (with the Python output of `execute_python` under it) to stderr. Exit code 0 when the run
 * answered, 1 on a model/provider error, `maxSteps` or an abort (Ctrl+C). `--json` prints the
 * finished run alone on stdout.
 */
export async function runAgentCommand(sys: ArmatureSystem, args: { goal: string; model?: Partial<AgentModelRef>; maxSteps?: number }, json: boolean, io: AgentCommandIo): Promise<number> {
  const missing = missingUpgrade(sys, 'Agent', 'runs agents');
  if (missing) {
    io.err(`armature: ${missing.message}`);
    return missing.code;
  }
  const agent = await sys.resolve<AgentApi>('Agent');
  const subs: Disposable[] = [];
  const pythonRuns = new Set<string>();
  let midLine = false;
  const toStdout = (t: string) => {
    io.write('stdout', t);
    midLine = !t.endsWith('\n');
  };
  const line = (t: string) => {
    if (midLine) toStdout('\n');
    io.write('stderr', `${t}\n`);
  };
  if (!json) {
    subs.push(sys.bus.on('agent:text-delta', (p) => toStdout(p.delta)));
    subs.push(
      sys.bus.on('agent:tool-called', (p) => {
        if (p.pythonRunId) pythonRuns.add(p.pythonRunId);
        line(`  → ${p.name} ${short(p.args)}`);
      }),
    );
    subs.push(sys.bus.on('python:stdout', (p) => pythonRuns.has(p.runId) && line(p.chunk.replace(/\n$/, '').replace(/^/gm, '    │ '))));
    subs.push(sys.bus.on('python:stderr', (p) => pythonRuns.has(p.runId) && line(p.chunk.replace(/\n$/, '').replace(/^/gm, '    │ [stderr] '))));
    subs.push(
      sys.bus.on('agent:tool-finished', (p) => {
        const r = p.result as { error?: { code?: string; type?: string; message?: string } };
        line(`  ${p.ok ? '✓' : '✖'} ${p.name} ${p.ok ? 'ok' : `${r.error?.code ?? r.error?.type}: ${short(r.error?.message, 160)}`} (${p.durationMs.toFixed(0)} ms)`);
      }),
    );
    let pythonStarting = false;
    const starting = () => {
      if (pythonStarting) return;
      pythonStarting = true;
      line('    … starting Python (its first run takes a few seconds)');
    };
    subs.push(sys.bus.on('python:progress', (p) => p.stage !== 'ready' && starting()));
    // The agent's runs are a session: their runtime starts in the pool, seen as one more worker.
    let workers = sys.bus.history(['python:pool']).at(-1)?.payload.workers ?? 0;
    subs.push(
      sys.bus.on('python:pool', (p) => {
        if (p.workers > workers) starting();
        workers = p.workers;
      }),
    );
    subs.push(sys.bus.on('agent:request-failed', (p) => line(`  ! the model request failed (${p.message})${p.willRetry ? `; retrying (attempt ${p.attempt})` : ''}`)));
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const result = await agent.run({ goal: args.goal, ...(args.model ? { model: args.model } : {}), ...(args.maxSteps ? { maxSteps: args.maxSteps } : {}), signal: controller.signal });
    if (json) {
      io.out(JSON.stringify(result, null, 2));
    } else {
      if (midLine) toStdout('\n');
      if (result.error) {
        io.err(`armature: ${result.error.message}`);
        if (result.error.hint) io.err(`hint: ${result.error.hint}`);
      }
      io.err(`[${result.reason} · ${result.steps} step${result.steps === 1 ? '' : 's'} · ${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens · ${result.runId}]`);
    }
    return result.reason === 'answered' ? 0 : 1;
  } finally {
    process.removeListener('SIGINT', stop);
    for (const s of subs) s.dispose();
  }
}
