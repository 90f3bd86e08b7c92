/**
 * `armature runs [--json]` and `armature runs show RUN [--json]`: the agent's past runs and one
 * run's transcript, as the terminal shows a run live (`armature agent`): each goal, what the model
 * said, one line per tool call with its Python output, how each turn ended. A run goes on with
 * `armature agent --continue RUN "..."`.
 */
import { oneLine, quote } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { AgentApi, RunSummary, TranscriptEntry } from '../contracts/agent-contract.ts';
import { toolFinishedLine } from './agent-follow.ts';
import { table, type CliIo } from './cli-io.ts';
import { terminalText } from './terminal/terminal-text.ts';
import { missingUpgrade } from './needed-upgrade.ts';
import { UsageError } from './usage-error.ts';

/** Usage lines of the command. */
export const RUNS_USAGE = `  armature runs [--json]                          the agent's past runs, newest first
  armature runs show RUN [--json]                 one run's transcript (continue it: agent --continue RUN)`;

/** How many runs the table shows. */
const SHOWN = 20;

/** Runs `runs` or `runs show RUN`; resolves to the exit code. */
export async function runRunsCommand(sys: ArmatureSystem, rest: readonly string[], json: boolean, io: CliIo): Promise<number> {
  const [sub, runId, ...extra] = rest;
  if (sub !== undefined && sub !== 'show') throw new UsageError(`runs takes no arguments, or show RUN; got ${rest.map((r) => quote(r)).join(' ')}`);
  if (sub === 'show' && (runId === undefined || extra.length)) throw new UsageError('runs show takes one run id: armature runs show run-20260101-120000-a1b2c3 (armature runs lists them)');
  const missing = missingUpgrade(sys, 'Agent', 'keeps the runs');
  if (missing) {
    io.err(`armature: ${missing.message}`);
    return missing.code;
  }
  const agent = await sys.resolve<AgentApi>('Agent');
  if (sub === 'show') return show(agent, runId!, json, io);
  const runs = agent.listRuns(Number.MAX_SAFE_INTEGER);
  if (json) {
    io.out(JSON.stringify(runs, null, 2));
    return 0;
  }
  if (!runs.length) {
    io.out('No runs yet: armature agent "GOAL" starts one (or armature agent --replay examples/sum-files to watch a recorded one).');
    return 0;
  }
  io.out(table(['run', 'when', 'turns', 'steps', 'tokens in/out', 'ended', 'goal'], runs.slice(0, SHOWN).map(row)));
  io.out(`\n${runs.length > SHOWN ? `${runs.length - SHOWN} older runs not shown (--json lists them all). ` : ''}armature runs show RUN shows one; armature agent --continue RUN "..." goes on with it.`);
  return 0;
}

function row(r: RunSummary): string[] {
  return [r.runId, when(r.updatedAt), String(r.turns), String(r.steps), `${r.usage.inputTokens}/${r.usage.outputTokens}`, r.reason, oneLine(plain(r.goal), 60)];
}

/** `armature runs show RUN`. */
function show(agent: AgentApi, runId: string, json: boolean, io: CliIo): number {
  let entries: TranscriptEntry[] | undefined;
  try {
    entries = agent.readRun(runId);
  } catch (e) {
    io.err(`armature: ${(e as Error).message}\nhint: ${(e as { hint?: string }).hint ?? 'armature runs lists the runs.'}`);
    return 1;
  }
  if (!entries) {
    io.err(`armature: no run ${quote(runId)}\nhint: armature runs lists the runs.`);
    return 1;
  }
  if (json) {
    io.out(JSON.stringify({ runId, entries }, null, 2));
    return 0;
  }
  for (const line of transcriptLines(entries)) io.out(line);
  io.out(`\nContinue it: armature agent --continue ${runId} "..."`);
  return 0;
}

/** A transcript as terminal lines; what a model or a tool wrote shows its control characters instead of acting on them. */
export function transcriptLines(entries: readonly TranscriptEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.type === 'started') {
      const model = e.model ? ` · ${e.model.provider}:${e.model.model}` : '';
      out.push(`${out.length ? '\n' : ''}You: ${plain(e.goal)}`, `  [${when(e.at)} · persona ${e.persona}${model} · ${e.toolMode} mode${e.continued ? ' · follow-up' : ''}]`);
    } else if (e.type === 'assistant') {
      if (e.text.trim()) out.push(...plain(e.text).split('\n').map((l) => `  ${l}`));
    } else if (e.type === 'tool') {
      out.push(`  → ${e.name} ${oneLine(typeof e.args === 'string' ? e.args : (JSON.stringify(e.args) ?? ''), 100)}`);
      const stdout = pythonOutput(e);
      if (stdout) out.push(...plain(stdout).replace(/\n$/, '').split('\n').map((l) => `    │ ${l}`));
      out.push(toolFinishedLine({ name: e.name, ok: e.ok, durationMs: e.durationMs, result: e.result }));
    } else if (e.type === 'finished') {
      if (e.error) out.push(`  ${e.reason === 'answered' ? '' : '✖ '}${oneLine(plain(e.error.message), 300)}`);
      out.push(`  [${e.reason} · ${e.steps} step${e.steps === 1 ? '' : 's'} · ${e.usage.inputTokens} in / ${e.usage.outputTokens} out tokens]`);
    }
  }
  return out;
}

/** What `execute_python` printed, from the result the model got. */
function pythonOutput(e: Extract<TranscriptEntry, { type: 'tool' }>): string {
  if (e.name !== 'execute_python') return '';
  const r = e.result as { value?: { stdout?: unknown }; error?: { details?: { stdout?: unknown } } } | undefined;
  const out = r?.value?.stdout ?? r?.error?.details?.stdout;
  return typeof out === 'string' ? out : '';
}

/** Untrusted text for a terminal: lines kept, every other control character shown, not obeyed. */
function plain(text: string): string {
  return terminalText(text.replace(/\r\n?/g, '\n'));
}

function when(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}
