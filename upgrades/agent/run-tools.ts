/**
 * The Agent's tools: `list_runs` and `read_run` (any caller the allow-list admits), and the agent
 * panel's own — `start_run`, `stop_run`, `save_agent_settings` — declared `audience: "person"`
 * (modules/tools-write.json), so only the dashboard and the command line have them.
 */
import { quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { ToolHandler } from '../../src/kernel/upgrade.ts';
import type { AgentApi, AgentModelRef, ToolMode } from '../../src/contracts/agent-contract.ts';
import type { RunsElsewhere } from './runs-elsewhere.ts';
import { checkRunId, type RunLiveness, type RunQuery, type TranscriptStore } from './transcript.ts';

/**
 * The Agent's tool handlers, by name. With `elsewhere` (Node, on a data folder), `list_runs` and
 * `read_run` read other processes' runs from the store first and report a run still going in
 * another live process as `running`, with that process (`processInfo`).
 */
export function agentTools(api: AgentApi, transcripts: Pick<TranscriptStore, 'page' | 'summaryOf'>, elsewhere?: RunsElsewhere): Record<string, ToolHandler> {
  /** Brings other processes' runs in, and says which run goes on where. */
  const liveness = async (): Promise<RunLiveness> => (elsewhere ? elsewhere.look(api.activeRuns()) : { active: new Set(api.activeRuns()) });
  return {
    list_runs: async (args) => transcripts.page(args as RunQuery, await liveness()),

    read_run: async (args) => {
      const runId = checkRunId(args.runId);
      const live = await liveness();
      const entries = api.readRun(runId);
      if (!entries) throw new ArmatureError('RUN_NOT_FOUND', `[read_run] no run ${JSON.stringify(runId)}`, { hint: 'List the runs with list_runs.' });
      const summary = transcripts.summaryOf(runId, live);
      // How its last turn stands (as list_runs says it) and the process of that turn.
      return { runId, entries, ...(summary ? { reason: summary.reason, ...(summary.processInfo ? { processInfo: summary.processInfo } : {}) } : {}) };
    },

    /**
     * Starts a run (or a follow-up of `runId`) and answers once it started, with its id; the run
     * goes on and streams as events. A run refused before it started answers its error.
     */
    start_run: (args) =>
      new Promise((resolve, reject) => {
        let started = false;
        const runId = args.runId === undefined ? undefined : checkRunId(args.runId);
        void api
          .run({
            goal: String(args.goal),
            ...(runId ? { runId } : {}),
            // For this run only: the panel's replays name their recording and its tool mode.
            ...(args.model === undefined ? {} : { model: args.model as AgentModelRef }),
            ...(args.toolMode === undefined ? {} : { toolMode: args.toolMode as ToolMode }),
            onStarted: (id) => {
              started = true;
              resolve({ runId: id, continued: runId !== undefined });
            },
          })
          .then((r) => {
            if (!started) reject(new ArmatureError(r.error?.code ?? 'RUN_REFUSED', r.error?.message ?? `[agent] the run did not start (${r.reason})`, r.error?.hint ? { hint: r.error.hint } : {}));
          });
      }),

    /** Stops a run of this system (a run of another process is routed there by the dashboard's server). */
    stop_run: (args) => {
      const runId = checkRunId(args.runId);
      const running = api.activeRuns().includes(runId);
      if (!running) {
        throw new ArmatureError('RUN_NOT_RUNNING', `[stop_run] run ${runId} is not running here${args.process ? ` (asked for process ${quote(args.process)})` : ''}`, {
          hint: 'It finished already, or it runs in another process: list the running ones with list_runs { "status": "running" }.',
        });
      }
      api.abort(runId);
      return { runId, stopped: true };
    },

    /** The panel's settings: the model (`null` forgets the choice) and, in a browser, the key. */
    save_agent_settings: (args) => {
      api.saveSettings({
        ...(args.model === undefined ? {} : { model: args.model as AgentModelRef | null }),
        ...(typeof args.apiKey === 'string' ? { apiKey: args.apiKey } : {}),
      });
      // The effective settings, never the key.
      return api.getSettings();
    },
  };
}
