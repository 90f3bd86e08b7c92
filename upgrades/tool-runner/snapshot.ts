import type { ToolRunnerApi, ToolStats } from '../../src/kernel/tool-contract.ts';

/** How many tools' statistics the snapshot carries: the most called. */
export const SNAPSHOT_TOOLS = 100;

/** What the ToolRunner's card shows: totals, and the statistics of the tools called so far. */
export interface ToolRunnerSnapshot {
  /** Calls of registered tools, in all. */
  calls: number;
  errors: number;
  /** Tools registered now or earlier (their statistics stay). */
  tools: number;
  /** The {@link SNAPSHOT_TOOLS} most called tools, most called first (tools never called are left out). */
  stats: ToolStats[];
  /** Called tools left out of `stats`. */
  moreStats: number;
}

/** The ToolRunner's snapshot now. */
export function toolRunnerSnapshot(runner: Pick<ToolRunnerApi, 'getStats'>): ToolRunnerSnapshot {
  const all = runner.getStats();
  const called = all.filter((s) => s.calls > 0).sort((a, b) => b.calls - a.calls || (a.name < b.name ? -1 : 1));
  return {
    calls: all.reduce((n, s) => n + s.calls, 0),
    errors: all.reduce((n, s) => n + s.errors, 0),
    tools: all.length,
    stats: called.slice(0, SNAPSHOT_TOOLS),
    moreStats: Math.max(0, called.length - SNAPSHOT_TOOLS),
  };
}
