import { ArmatureError } from '../../src/kernel/errors.ts';
import { RUN_ID_PATTERN, type AgentUsage, type RunSummary, type TranscriptEntry } from '../../src/contracts/agent-contract.ts';
import type { ProcessStatus } from '../../src/kernel/journal/journal-layout.ts';

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
    return this.page({ limit }, { active }).runs;
  }

  /**
   * One page of past runs, newest first, matching every filter given; `next_cursor` (the last run
   * id of the page) when more follow. Each transcript is summarized once per version of its file,
   * so paging through 1,000 runs reads each of them at most once.
   */
  page(query: RunQuery, live: RunLiveness = {}): { runs: RunSummary[]; next_cursor?: string } {
    const limit = Math.max(0, query.limit ?? 20);
    if (query.cursor !== undefined && (typeof query.cursor !== 'string' || !RUN_ID.test(query.cursor))) {
      throw new ArmatureError('INVALID_CURSOR', `[list_runs] ${JSON.stringify(String(query.cursor).slice(0, 100))} is not a cursor list_runs gave`, { hint: 'Pass the next_cursor of the page before, or leave cursor out for the newest runs.' });
    }
    const files = this.area
      .list()
      .filter((f) => f.path.endsWith('.jsonl') && RUN_ID.test(f.path.slice(0, -6)))
      // Run ids sort by their start time: newest first; a cursor is the last run id of the page before.
      .sort((a, b) => (a.path < b.path ? 1 : -1))
      .filter((f) => query.cursor === undefined || f.path.slice(0, -6) < query.cursor);
    const runs: RunSummary[] = [];
    let i = 0;
    for (; i < files.length && runs.length < limit; i++) {
      const s = this.summary(files[i]!, live);
      if (s && matches(s, query)) runs.push(s);
    }
    const more = runs.length === limit && files.slice(i).some((f) => {
      const s = this.summary(f, live);
      return !!s && matches(s, query);
    });
    return more && runs.length ? { runs, next_cursor: runs.at(-1)!.runId } : { runs };
  }

  /** The summary of one run as {@link page} would give it, or undefined when there is no such run. */
  summaryOf(runId: string, live: RunLiveness = {}): RunSummary | undefined {
    const path = `${checkRunId(runId)}.jsonl`;
    const f = this.area.list().find((x) => x.path === path);
    return f && this.summary(f, live);
  }

  /** Summaries by run id, with the file version (mtime and size) each was read from, and its last turn's process. */
  private readonly summaries = new Map<string, { mtime: number; size: number; summary: RunSummary | undefined; turnProcess: string | undefined }>();

  private summary(f: { path: string; size: number; mtime: number }, live: RunLiveness): RunSummary | undefined {
    const runId = f.path.slice(0, -6);
    let cached = this.summaries.get(runId);
    if (!cached || cached.mtime !== f.mtime || cached.size !== f.size) {
      const entries = this.read(runId) ?? [];
      cached = { mtime: f.mtime, size: f.size, summary: summarize(runId, entries, f.mtime), turnProcess: lastTurnProcess(entries) };
      this.summaries.set(runId, cached);
    }
    const s = cached.summary;
    if (!s) return s;
    if (live.active?.has(runId)) return { ...s, reason: 'running' };
    const info = cached.turnProcess === undefined ? undefined : live.processOf?.(cached.turnProcess);
    if (!info) return s;
    // No end in the transcript: the turn goes on while another process that runs it lives (this
    // process's own runs are in `active`; one of them not there was cut short).
    const running = s.reason === 'interrupted' && info.state === 'live' && info.id !== live.self;
    return { ...s, processInfo: info, ...(running ? { reason: 'running' as const } : {}) };
  }
}

/** What says whether a run without an end goes on: {@link TranscriptStore.page}'s view of the processes. */
export interface RunLiveness {
  /** Runs in progress in this system. Default: none. */
  active?: ReadonlySet<string>;
  /** This process's id on the data folder. Default: none. */
  self?: string;
  /** A process on the data folder now, by id (Node). Default: none known. */
  processOf?(id: string): ProcessStatus | undefined;
}

/** The process of the last turn of `entries` (its last `started` entry's), if it was recorded. */
function lastTurnProcess(entries: readonly TranscriptEntry[]): string | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.type === 'started') return e.process;
  }
  return undefined;
}

/** Filters and paging of {@link TranscriptStore.page} (`list_runs`). */
export interface RunQuery {
  /** Runs per page. Default: 20. */
  limit?: number;
  /** The `next_cursor` of the page before. */
  cursor?: string;
  /** Only runs whose last turn ended so (`running` for those in progress). */
  status?: RunSummary['reason'];
  /** Only runs under this persona. */
  persona?: string;
  /** Only runs of this process. */
  process?: string;
}

function matches(s: RunSummary, q: RunQuery): boolean {
  return (!q.status || s.reason === q.status) && (!q.persona || s.persona === q.persona) && (!q.process || s.process === q.process);
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
  return { runId, goal: first.goal, persona: first.persona, ...(first.process ? { process: first.process } : {}), startedAt: first.at, updatedAt, turns, steps, usage, reason, ...(model ? { model } : {}) };
}
