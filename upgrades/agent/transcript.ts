import { ArmatureError } from '../../src/kernel/errors.ts';
import { RUN_ID_PATTERN, type AgentUsage, type RunSummary, type TranscriptEntry } from '../../src/contracts/agent-contract.ts';

/** The workspace system area the transcripts live in. */
export const RUNS_AREA = 'runs';

/** The part of a workspace system area the transcripts need. */
export interface TranscriptArea {
  list(prefix?: string): { path: string; size: number; mtime: number }[];
  readText(path: string): string | undefined;
  append(path: string, text: string): Promise<unknown>;
}

const RUN_ID = RUN_ID_PATTERN;

/** A new run id: sortable by time, unique enough for one workspace (`run-20260101-120000-a1b2c3`). */
export function newRunId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `run-${stamp}-${Math.random().toString(36).slice(2, 8).padEnd(6, '0')}`;
}

/** Throws `INVALID_RUN_ID` unless `runId` looks like one {@link newRunId} makes. */
export function checkRunId(runId: unknown): string {
  if (typeof runId !== 'string' || !RUN_ID.test(runId)) {
    throw new ArmatureError('INVALID_RUN_ID', `[agent] ${JSON.stringify(String(runId).slice(0, 100))} is not a run id`, {
      hint: 'Run ids look like "run-20260101-120000-a1b2c3"; list them with list_runs.',
    });
  }
  return runId;
}

const addUsage = (a: AgentUsage, b: AgentUsage): AgentUsage => ({ inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens });

/**
 * Runs as JSON-lines files (`<runId>.jsonl`), one entry a line, in the workspace's hidden system
 * area: durable like workspace files, invisible to file tools and Python. Appends of one store run
 * in call order; `flush()` resolves once every append so far is durable.
 */
export class TranscriptStore {
  private pending: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;

  constructor(private readonly area: TranscriptArea) {}

  /** Queues `entry` at the end of `runId`'s transcript. */
  append(runId: string, entry: TranscriptEntry): void {
    const line = `${JSON.stringify(entry)}\n`;
    this.pending = this.pending.then(() =>
      this.area.append(`${runId}.jsonl`, line).catch((e: unknown) => {
        this.failure ??= e as Error;
      }),
    );
  }

  /** Resolves once every queued entry is durable; rejects with the first write that failed (once). */
  async flush(): Promise<void> {
    await this.pending;
    const f = this.failure;
    this.failure = undefined;
    if (f) throw new ArmatureError('TRANSCRIPT_WRITE_FAILED', `[agent] the transcript could not be saved: ${f.message}`, { cause: f });
  }

  /** The entries of `runId`, or undefined when there is no such run. Lines that do not parse are skipped. */
  read(runId: string): TranscriptEntry[] | undefined {
    const text = this.area.readText(`${checkRunId(runId)}.jsonl`);
    if (text === undefined) return undefined;
    const out: TranscriptEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as TranscriptEntry);
      } catch {
        // A line cut short by a crash: the rest of the run is still readable.
      }
    }
    return out;
  }

  /** Past runs, newest first; `active` run ids are reported as `running`. */
  list(limit = 20, active: ReadonlySet<string> = new Set()): RunSummary[] {
    const files = this.area
      .list()
      .filter((f) => f.path.endsWith('.jsonl') && RUN_ID.test(f.path.slice(0, -6)))
      .sort((a, b) => (a.path < b.path ? 1 : -1))
      .slice(0, Math.max(0, limit));
    const out: RunSummary[] = [];
    for (const f of files) {
      const runId = f.path.slice(0, -6);
      const entries = this.read(runId) ?? [];
      const s = summarize(runId, entries, f.mtime);
      if (s) out.push(active.has(runId) ? { ...s, reason: 'running' } : s);
    }
    return out;
  }
}

/** The summary of one run's entries, or undefined when it has no start. */
export function summarize(runId: string, entries: readonly TranscriptEntry[], updatedAt: number): RunSummary | undefined {
  const first = entries.find((e) => e.type === 'started');
  if (!first || first.type !== 'started') return undefined;
  let turns = 0;
  let steps = 0;
  // A finished turn counts the steps its run reported (a step whose request failed is one, as in
  // `agent:run-finished`); a turn cut off before it finished, the model's answers it got.
  let turnSteps = 0;
  let usage: AgentUsage = { inputTokens: 0, outputTokens: 0 };
  let reason: RunSummary['reason'] = 'interrupted';
  let model = first.model;
  for (const e of entries) {
    if (e.type === 'started') {
      turns++;
      steps += turnSteps;
      turnSteps = 0;
      reason = 'interrupted';
      model = e.model ?? model;
    } else if (e.type === 'assistant') {
      turnSteps++;
      usage = addUsage(usage, e.usage);
    } else if (e.type === 'finished') {
      reason = e.reason;
      turnSteps = e.steps;
    }
  }
  steps += turnSteps;
  return { runId, goal: first.goal, startedAt: first.at, updatedAt, turns, steps, usage, reason, ...(model ? { model } : {}) };
}
