/**
 * The model of one turn, as recording and replay make it: the `replay` provider plays a recording
 * back (the workspace seeded first, on its first turn); any model may be recorded into a sink.
 */
import type { LanguageModel } from 'ai';
import { ArmatureError } from '../../../src/kernel/errors.ts';
import type { AgentModelRef, ToolMode } from '../../../src/contracts/agent-contract.ts';
import { recordingLine, RECORDING_FORMAT, RECORDING_VERSION, type Recording, type RecordingLine, type RecordingSink } from '../../../src/contracts/recording-format.ts';
import { maskPieces, recordingModel, type PieceMask } from './recording-model.ts';
import { ReplayModel, type ReplayNotes } from './replay-model.ts';

/** What a replay needs of the workspace: to write the files a recording starts from. */
export interface ReplayWorkspace {
  stat(path: string): unknown;
  readText(path: string): string;
  write(path: string, data: string): Promise<unknown>;
}

/** Reads the recording a `replay` model names (`examples/sum-files`, a `.jsonl` file). */
export type RecordingLoader = (name: string) => Promise<Recording>;

/**
 * Writes the files a recording starts from. A file already there with the same text is fine;
 * with other text the replay could only diverge, so it is refused before anything runs (and the
 * file stays as it is).
 */
export async function seedWorkspace(recording: Recording, workspace: ReplayWorkspace | undefined): Promise<void> {
  const files = recording.header.workspace?.files ?? [];
  if (!files.length) return;
  if (!workspace) throw new ArmatureError('REPLAY_NEEDS_WORKSPACE', `[agent] ${recording.source} starts from files in the workspace, and there is none`);
  const clash = files.find((f) => workspace.stat(f.path) && workspace.readText(f.path) !== f.content);
  if (clash) {
    throw new ArmatureError('REPLAY_WORKSPACE_DIFFERS', `[agent] ${recording.source} starts from ${clash.path} as it was recorded, and this workspace holds another ${clash.path}`, {
      hint: 'Replay it into a fresh workspace (armature agent --replay ... --data NEW-FOLDER), so nothing of yours is overwritten.',
      details: { path: clash.path },
    });
  }
  for (const f of files) if (!workspace.stat(f.path)) await workspace.write(f.path, f.content);
}

/** Everything {@link turnModel} needs. */
export interface TurnModelOptions {
  ref: AgentModelRef;
  /** This turn's index in the run: 0 for its first goal. */
  turn: number;
  runId: string;
  goal: string;
  persona: string;
  toolMode: ToolMode;
  /** Makes a real model (the provider's). */
  make(): Promise<LanguageModel>;
  loadRecording?: RecordingLoader;
  workspace?: ReplayWorkspace;
  record?: RecordingSink;
  /** Masks secrets in everything recorded. */
  mask<T>(value: T): T;
  /** A fresh mask of secrets in text that streams in pieces (one per streamed text). */
  maskStream(): PieceMask;
  /** The run's step at the moment (the loop moves it). */
  step(): number;
  /** Where a replay notes what changed without stopping it. */
  notes: ReplayNotes;
}

/** The model of this turn: a replay (with its recording), the provider's model, either one recorded when asked. */
export async function turnModel(o: TurnModelOptions): Promise<{ model: LanguageModel; recording?: Recording }> {
  let model: LanguageModel;
  let recording: Recording | undefined;
  if (o.ref.provider === 'replay') {
    if (!o.loadRecording) throw new ArmatureError('REPLAY_UNAVAILABLE', '[agent] this system cannot read recordings');
    recording = await o.loadRecording(o.ref.model);
    if (o.turn >= recording.turns.length) {
      throw new ArmatureError('REPLAY_OVER', `[agent] ${recording.source} has ${recording.turns.length} turn${recording.turns.length === 1 ? '' : 's'}, and this would be turn ${o.turn + 1}`, {
        hint: 'Every recorded turn was replayed: start a new run to replay it again, or choose a model to go on with this one.',
      });
    }
    if (o.turn === 0) await seedWorkspace(recording, o.workspace);
    model = new ReplayModel(recording, o.turn, o.notes);
  } else {
    model = await o.make();
  }
  const sink = o.record;
  if (!sink) return { model, ...(recording ? { recording } : {}) };
  // A key echoed split across streamed pieces is masked across them, then every string on its own.
  const write = (line: RecordingLine) => sink.write(recordingLine(o.mask(line.type === 'step' ? { ...line, response: maskPieces(line.response, o.maskStream) as typeof line.response } : line)));
  if (o.turn === 0) {
    write({
      type: 'recording',
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      run: o.runId,
      recordedAt: new Date().toISOString(),
      persona: o.persona,
      toolMode: o.toolMode,
      model: { provider: o.ref.provider, model: o.ref.model },
      ...sink.header,
    });
  }
  write({ type: 'turn', turn: o.turn + 1, goal: o.goal });
  return { model: await recordingModel(model, { position: () => ({ turn: o.turn + 1, step: o.step() }), write }), ...(recording ? { recording } : {}) };
}
