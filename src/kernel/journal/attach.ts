/**
 * Gives a booted system its journal on the data folder (see `journal-layout.ts`), with the control
 * requests a dashboard may send it: `stop_run`, called here as the person at the dashboard (caller
 * `ui`), the one power a dashboard exercises in another process. Decisions on changes do not come
 * this way: they go through the change store, which every process follows.
 */
import type { ToolRunnerApi } from '../tool-contract.ts';
import { RELAYED_TOOLS, type ProcessCommand } from './journal-layout.ts';
import { openJournal, type JournalOptions, type ProcessJournal } from './journal-writer.ts';
import type { ControlHandler } from './control.ts';

/** What the journal needs of the system it belongs to, known once the persona has loaded. */
export interface JournalHost {
  tools(): ToolRunnerApi | undefined;
  resolve(id: string): Promise<unknown>;
}

/** A control handler calling the relayed tools in `host`. */
export function relayControl(host: JournalHost): ControlHandler {
  return async (request) => {
    const t0 = performance.now();
    if (!RELAYED_TOOLS.includes(request.tool)) {
      return { ok: false, error: { code: 'NOT_RELAYED', message: `[control] ${JSON.stringify(request.tool)} cannot be called from another process; only ${RELAYED_TOOLS.join(', ')} can` }, durationMs: 0 };
    }
    const tools = host.tools();
    if (tools?.hasTool(request.tool)) return tools.executeTool(request.tool, request.args, { caller: 'ui' });
    // Before the Agent offers stop_run as a tool, its API does the same.
    const runId = request.args.runId;
    if (typeof runId !== 'string') return { ok: false, error: { code: 'INVALID_ARGS', message: `[stop_run] runId must be a string, got ${JSON.stringify(runId)}` }, durationMs: 0 };
    try {
      const agent = (await host.resolve('Agent')) as { abort(runId?: string): void; activeRuns(): string[] };
      const running = agent.activeRuns().includes(runId);
      agent.abort(runId);
      return { ok: true, value: { runId, stopped: running }, durationMs: performance.now() - t0 };
    } catch (e) {
      return { ok: false, error: { code: 'NO_AGENT', message: `[stop_run] this process runs no agent: ${(e as Error).message}` }, durationMs: performance.now() - t0 };
    }
  };
}

/**
 * Opens the journal of a system booted on `dataDir`, or resolves to undefined when it cannot be
 * written (a data folder that is a file, a read-only one): the system works on without it.
 */
export function startProcessJournal(options: Omit<JournalOptions, 'control'> & { command?: ProcessCommand; host: JournalHost }): ProcessJournal | undefined {
  try {
    return openJournal({ ...options, control: relayControl(options.host) });
  } catch {
    return undefined;
  }
}
