import type { AgentApi, AgentSettings, RecordedExample, RunSummary } from '../../src/contracts/agent-contract.ts';

/** How many past runs the snapshot lists; the panel pages the rest with list_runs. */
export const SNAPSHOT_RUNS = 10;

/** What the agent panel shows of the Agent: its settings (never a key), the runs in progress, the newest runs. */
export interface AgentSnapshot {
  settings: AgentSettings;
  /** Ids of the runs in progress in this system. */
  active: string[];
  /** The {@link SNAPSHOT_RUNS} newest runs. */
  runs: RunSummary[];
  /** Whether older runs exist (list_runs with the last run id as cursor pages them). */
  moreRuns: boolean;
  /** The recorded examples the panel can replay (none until they are read, or where there are none). */
  examples: RecordedExample[];
}

/** The Agent's snapshot now. */
export function agentSnapshot(api: Pick<AgentApi, 'getSettings' | 'activeRuns' | 'listRuns'>, examples: readonly RecordedExample[] = []): AgentSnapshot {
  let runs: RunSummary[] = [];
  try {
    runs = api.listRuns(SNAPSHOT_RUNS + 1);
  } catch {
    // An unreadable transcript area: the panel still shows the settings and what runs now.
  }
  return { settings: api.getSettings(), active: api.activeRuns(), runs: runs.slice(0, SNAPSHOT_RUNS), moreRuns: runs.length > SNAPSHOT_RUNS, examples: examples.map((e) => ({ ...e, goals: [...e.goals] })) };
}
