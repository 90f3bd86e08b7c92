import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { AgentApi, RecordingSink } from '../contracts/agent-contract.ts';
import type { AgentArgs } from './agent-args.ts';
import { followRuns, stoppable, type AgentCommandIo } from './agent-follow.ts';
import { missingUpgrade } from './needed-upgrade.ts';
import { openRecordFile } from './record-file.ts';
import { runReplayCommand } from './replay-command.ts';

/**
 * `armature agent`: runs the goal (see {@link followRuns} for what it prints). Exit code 0 when the
 * run answered, 1 on a model/provider error, `maxSteps` or an abort (Ctrl+C). `--replay` plays a
 * recording back instead (`replay-command.ts`); `--record` keeps the model's side in a file.
 */
export async function runAgentCommand(sys: ArmatureSystem, args: AgentArgs, json: boolean, io: AgentCommandIo): Promise<number> {
  const missing = missingUpgrade(sys, 'Agent', 'runs agents');
  if (missing) {
    io.err(`armature: ${missing.message}`);
    return missing.code;
  }
  const agent = await sys.resolve<AgentApi>('Agent');
  let record: RecordingSink | undefined;
  if (args.record !== undefined) {
    const opened = openRecordFile(args.record, args.runId);
    if (typeof opened === 'string') {
      io.err(`armature: ${opened}`);
      return 2;
    }
    record = opened;
  }
  if (args.replay !== undefined) return runReplayCommand(sys, agent, { ...args, replay: args.replay }, json, io, record);
  const follow = followRuns(sys, io, json);
  try {
    const result = await stoppable((signal) =>
      agent.run({ goal: args.goal ?? '', ...(args.runId ? { runId: args.runId } : {}), ...(args.model ? { model: args.model } : {}), ...(args.maxSteps ? { maxSteps: args.maxSteps } : {}), ...(record ? { record } : {}), signal }),
    );
    if (record && !json) follow.line(`  recorded to ${args.record} (replay it: armature agent --replay ${args.record})`);
    return follow.finish(result);
  } finally {
    follow.dispose();
  }
}
