/**
 * `armature agent --replay FILE [--approve] [--continue RUN] ["GOAL"]`: plays a recorded run back
 * against this system, turn by turn — the model's answers come from the recording, every tool runs
 * for real, and the first tool result that differs from the recorded one stops it (exit 1).
 *
 * A turn that leaves changes of the run waiting for a person (a tool it made, an upgrade) is where
 * the recorded person approved them. A replay never approves by itself — approving is a person's
 * power — so it waits: the person approves (`armature approve ID`, or the dashboard's Changes) and
 * goes on with `--continue RUN`; or, running the replay with `--approve`, says yes up front to the
 * changes this run makes, approved as the cli (a person), each line printed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { oneLine } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { CHANGES_ID, type ChangeRecord, type ChangesApi } from '../contracts/change-contract.ts';
import { describeError } from '../kernel/errors.ts';
import type { AgentApi, Recording, RecordingSink, RunResult } from '../contracts/agent-contract.ts';
import type { ProjectFiles } from '../platform/platform.ts';
import { parseRecording, recordingPaths } from '../contracts/recording-format.ts';
import type { AgentArgs } from './agent-args.ts';
import { followRuns, stoppable, type AgentCommandIo } from './agent-follow.ts';
import { terminalText } from './terminal/terminal-text.ts';

/**
 * The persona a recording was made with, read before boot as the Agent will find it (a file from
 * the current folder, else the project's); `undefined` when it cannot be read (the replay says why
 * once booted).
 */
export async function recordedPersona(name: string, project: ProjectFiles): Promise<string | undefined> {
  for (const path of recordingPaths(name)) {
    let text: string | undefined;
    try {
      text = existsSync(path) && statSync(path).isFile() ? readFileSync(path, 'utf8') : await project.read(path);
    } catch {
      continue;
    }
    try {
      return parseRecording(text, path).header.persona;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The run's changes that wait for a person, oldest first (the order they build on each other). */
function waiting(changes: ChangesApi | undefined, runId: string): ChangeRecord[] {
  return (changes?.list({ status: 'pending' }) ?? []).filter((r) => r.caller.run === runId).reverse();
}

const describe = (r: ChangeRecord) => `${r.kind} ${r.target}${r.version === null ? '' : ` v${r.version}`}`;

/** Runs the replay; resolves to the exit code (0 once every recorded turn replayed). */
export async function runReplayCommand(sys: ArmatureSystem, agent: AgentApi, args: AgentArgs & { replay: string }, json: boolean, io: AgentCommandIo, record?: RecordingSink): Promise<number> {
  let recording: Recording;
  try {
    recording = await agent.readRecording(args.replay);
  } catch (e) {
    io.err(`armature: ${describeError(e)}${(e as { hint?: string }).hint ? `\nhint: ${(e as { hint?: string }).hint}` : ''}`);
    return 1;
  }
  const changes = sys.modules.some((m) => m.id === CHANGES_ID && m.state === 'loaded') ? await sys.resolve<ChangesApi>(CHANGES_ID) : undefined;
  let runId = args.runId;
  let turn = runId ? (agent.readRun(runId) ?? []).filter((e) => e.type === 'started').length : 0;
  const total = recording.turns.length;
  if (turn >= total) {
    io.err(`armature: run ${runId} has ${turn} turn${turn === 1 ? '' : 's'}, and ${recording.source} records ${total}: there is nothing left to replay\nhint: armature agent --replay ${args.replay} replays it again in a new run.`);
    return 1;
  }
  const say = (t: string) => !json && io.err(t);
  const h = recording.header;
  say(`Replaying ${recording.source}${h.title ? `: ${oneLine(h.title, 120)}` : ''}`);
  if (h.label) say(`  (${oneLine(h.label, 200)})`);
  say(`  ${total} turn${total === 1 ? '' : 's'}, persona ${sys.persona.id}; no model and no key: the answers come from the recording, the tools run for real.`);
  const results: RunResult[] = [];
  const live = json ? undefined : followRuns(sys, io, false);
  const first = turn;
  try {
    for (; turn < total; turn++) {
      if (runId && turn > 0) {
        const pending = waiting(changes, runId);
        if (pending.length && !args.approve) {
          say(`\n◌ The replay waits for a person: ${pending.map((r) => `change ${r.id} (${describe(r)})`).join(', ')} ${pending.length === 1 ? 'is' : 'are'} pending, as ${pending.length === 1 ? 'it was' : 'they were'} when the run was recorded.`);
          say(`  Approve ${pending.length === 1 ? 'it' : 'them'} (armature approve ${pending.map((r) => r.id).join(' ')}, or on the dashboard's Changes), then go on:`);
          say(`  armature agent --replay ${args.replay} --continue ${runId}`);
          say('  (or replay with --approve to approve this run\'s changes as they come)');
          if (json) io.out(JSON.stringify(results, null, 2));
          return 1;
        }
        for (const r of pending) {
          try {
            const done = await changes!.approve(r.id, { caller: 'cli' });
            say(`✓ approved change ${r.id} (${describe(r)}): ${done.status} — you approved it by running this replay with --approve`);
          } catch (e) {
            say(`armature: could not approve change ${r.id}: ${describeError(e)}`);
            return 1;
          }
        }
      }
      // A goal given on the command line replaces the first recorded one replayed now (it must match to go on).
      const goal = turn === first && args.goal !== undefined ? args.goal : recording.turns[turn]!.goal;
      say(`\nYou: ${terminalText(goal)}`);
      const result = await stoppable((signal) =>
        agent.run({ goal, ...(runId ? { runId } : {}), model: { provider: 'replay', model: args.replay }, toolMode: recording.header.toolMode, ...(args.maxSteps ? { maxSteps: args.maxSteps } : {}), ...(record ? { record } : {}), signal }),
      );
      results.push(result);
      runId = result.runId;
      const code = live ? live.finish(result) : result.reason === 'answered' ? 0 : 1;
      for (const n of result.replay?.notes ?? []) say(`  note: ${n}`);
      if (code !== 0) {
        if (json) io.out(JSON.stringify(results, null, 2));
        return code;
      }
    }
  } finally {
    live?.dispose();
  }
  if (json) io.out(JSON.stringify(results, null, 2));
  const replayed = first === 0 ? `${total} turn${total === 1 ? '' : 's'}` : `turn${total - first === 1 ? '' : 's'} ${first + 1}${total - first === 1 ? '' : `-${total}`} of ${total}`;
  say(`\n✓ Replayed ${replayed} of ${recording.source}: every tool result matched the recording (run ${runId}; armature runs show ${runId}).`);
  return 0;
}
