/**
 * How a run looks on the terminal: the assistant's text streamed to stdout, one line per tool call
 * (its Python output under it, its mark: ✓ / ✖ / ◌) to stderr, how it ended. What a model, a tool
 * or Python wrote reaches the terminal with its control characters shown, not obeyed
 * ({@link terminalText}; `main` passes every write through it as well).
 */
import { oneLine } from '../kernel/bounded.ts';
import { terminalText } from './terminal/terminal-text.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { changeOutcomeOf } from '../contracts/change-answer.ts';
import type { Disposable } from '../kernel/lifecycle.ts';
import type { RunResult } from '../contracts/agent-contract.ts';

/** What `armature agent` needs from the CLI around it. */
export interface AgentCommandIo {
  out(text: string): void;
  err(text: string): void;
  write(stream: 'stdout' | 'stderr', text: string): void;
}

/** Untrusted text (a model's arguments, a tool's report) on one terminal line, its control characters shown. */
const short = (v: unknown, n = 100) => oneLine(terminalText(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')), n + 1).replace(/\s+/g, ' ');

/**
 * The line a finished tool call gets: `✓` when it did what it was asked, `✖` with the error when
 * it failed — and when its answer is a change (`create_tool`, `update_upgrade`, ...), what became
 * of that change: a call that ran but whose change its gate rejected is no success.
 */
export function toolFinishedLine(p: { name: string; ok: boolean; durationMs: number; result: unknown }): string {
  const ms = `(${p.durationMs.toFixed(0)} ms)`;
  if (!p.ok) {
    const r = p.result as { error?: { code?: string; type?: string; message?: string } } | undefined;
    return `  ✖ ${p.name} ${r?.error?.code ?? r?.error?.type}: ${short(r?.error?.message, 160)} ${ms}`;
  }
  const change = changeOutcomeOf(p.result);
  if (change?.status === 'rejected') return `  ✖ ${p.name} rejected (change ${change.change}): ${short(change.report ?? 'its gate refused it', 160)} ${ms}`;
  if (change?.status === 'pending') return `  ◌ ${p.name} pending: change ${change.change} waits for a person (armature approve ${change.change}) ${ms}`;
  return `  ✓ ${p.name} ${change ? `${change.status} (change ${change.change})` : 'ok'} ${ms}`;
}

/** What a followed run prints, and how it ends. */
export interface RunFollower extends Disposable {
  /** Prints how the run (turn) ended, unless --json; the exit code it means. */
  finish(result: RunResult): number;
  /** A line on stderr, after the streamed text. */
  line(text: string): void;
}

/**
 * Follows the agent's runs on the terminal: the assistant's text to stdout as it streams, one line
 * per tool call (with the Python output of `execute_python` under it) to stderr. With `json`,
 * nothing streams and {@link RunFollower.finish} prints the finished run alone on stdout.
 */
export function followRuns(sys: ArmatureSystem, io: AgentCommandIo, json: boolean): RunFollower {
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
    subs.push(sys.bus.on('agent:text-delta', (p) => toStdout(terminalText(p.delta))));
    subs.push(
      sys.bus.on('agent:tool-called', (p) => {
        if (p.pythonRunId) pythonRuns.add(p.pythonRunId);
        line(`  → ${p.name} ${short(p.args)}`);
      }),
    );
    subs.push(sys.bus.on('python:stdout', (p) => pythonRuns.has(p.runId) && line(terminalText(p.chunk).replace(/\n$/, '').replace(/^/gm, '    │ '))));
    subs.push(sys.bus.on('python:stderr', (p) => pythonRuns.has(p.runId) && line(terminalText(p.chunk).replace(/\n$/, '').replace(/^/gm, '    │ [stderr] '))));
    subs.push(sys.bus.on('agent:tool-finished', (p) => line(toolFinishedLine(p))));
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
  return {
    line,
    finish(result) {
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
    },
    dispose() {
      for (const s of subs.splice(0)) s.dispose();
    },
  };
}

/** Aborts `controller` on Ctrl+C while `work` runs. */
export async function stoppable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    return await work(controller.signal);
  } finally {
    process.removeListener('SIGINT', stop);
  }
}

