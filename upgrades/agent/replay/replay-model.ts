/**
 * Replay: a language model (the AI SDK's `LanguageModelV3`) that answers each request of one turn
 * with the answer a recording holds for it — no network, no key — after checking that the request
 * is the one recorded: the goal, and each tool result the model is about to read, must be what the
 * model saw when the run was recorded. The first difference ends the run with `REPLAY_DIVERGED`,
 * naming the step and both values.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { ArmatureError } from '../../../src/kernel/errors.ts';
import type { Recording, StepLine } from '../../../src/contracts/recording-format.ts';
import { describeRequest, firstDifference, type Difference } from './request-view.ts';

/** What a replay found that does not stop it (the system prompt or the tools changed since). */
export interface ReplayNotes {
  notes: string[];
}

/** Longest value a divergence message shows, in characters of JSON. */
const SHOWN = 240;

const shown = (v: unknown) => {
  const s = v === undefined ? 'nothing' : (JSON.stringify(v) ?? String(v));
  return s.length > SHOWN ? `${s.slice(0, SHOWN)}…` : s;
};

type Part = { type?: string; toolCallId?: string; toolName?: string; output?: { value?: unknown } };
type Message = { role?: string; content?: unknown };

/** The divergence between the messages recorded for a step and those the run sends now, said for people. */
function divergence(recorded: readonly unknown[], actual: readonly unknown[]): { what: string; difference: Difference } | undefined {
  const d = firstDifference(recorded, actual);
  if (!d) return undefined;
  const m = /^\$\[(\d+)\](?:\.content\[(\d+)\])?/.exec(d.path);
  const message = (m ? (actual[Number(m[1])] ?? recorded[Number(m[1])]) : undefined) as Message | undefined;
  const part = (m?.[2] !== undefined && Array.isArray(message?.content) ? message.content[Number(m[2])] : undefined) as Part | undefined;
  if (message?.role === 'tool' && part?.type === 'tool-result') {
    const rest = d.path.slice(m![0].length).replace(/^\.output\.value/, '');
    return { what: `the result of ${part.toolName} (call ${part.toolCallId}) differs${rest ? ` at $${rest}` : ''}`, difference: d };
  }
  if (message?.role === 'user') return { what: 'the goal differs', difference: d };
  return { what: `the request differs at ${d.path}`, difference: d };
}

/** A model playing back one turn of `recording` (turns count from 0). */
export class ReplayModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'replay';
  readonly supportedUrls = {};
  private next = 0;
  private noted = new Set<string>();

  constructor(
    private readonly recording: Recording,
    private readonly turn: number,
    private readonly report: ReplayNotes,
  ) {}

  get modelId(): string {
    return this.recording.source;
  }

  async doGenerate(): Promise<never> {
    throw new ArmatureError('REPLAY_STREAM_ONLY', '[agent] a replay answers streamed requests only, as the agent makes them');
  }

  async doStream(options: LanguageModelV3CallOptions) {
    const recorded = this.recording.turns[this.turn];
    const i = this.next++;
    const step = recorded?.steps[i];
    const where = `turn ${this.turn + 1}, request ${i + 1}`;
    if (!recorded || !step) {
      throw diverged(
        `[agent] the replay of ${this.recording.source} diverged at ${where}: the run asks the model again, but the recording ${recorded ? `has ${recorded.steps.length} request${recorded.steps.length === 1 ? '' : 's'} in turn ${this.turn + 1}` : `has ${this.recording.turns.length} turn${this.recording.turns.length === 1 ? '' : 's'}`}`,
        { turn: this.turn + 1, request: i + 1 },
      );
    }
    const actual = await describeRequest(options);
    const found = divergence(step.request.messages, actual.messages);
    if (found) {
      const { what, difference } = found;
      throw diverged(`[agent] the replay of ${this.recording.source} diverged at step ${step.step}: ${what}: recorded ${shown(difference.recorded)}, now ${shown(difference.actual)}`, {
        turn: step.turn,
        step: step.step,
        path: difference.path,
        recorded: difference.recorded,
        actual: difference.actual,
      });
    }
    if (actual.digest !== step.request.digest) this.noteChanges(step, actual);
    return { stream: playback(step) };
  }

  /** The goal and the tool results match, yet the request differs: say what changed, once each. */
  private noteChanges(step: StepLine, actual: { system: string; tools: string }): void {
    const changed = [actual.system !== step.request.system ? 'the system prompt' : '', actual.tools !== step.request.tools ? 'the tools offered' : ''].filter(Boolean);
    const key = changed.join('+') || 'history';
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.report.notes.push(
      changed.length
        ? `from step ${step.step}, ${changed.join(' and ')} differ${changed.length === 1 ? 's' : ''} from the recording's (the persona, its tools or Armature changed since it was recorded); the tool results still match`
        : `at step ${step.step}, the conversation before the new messages differs from the recording's`,
    );
  }
}

function diverged(message: string, details: Record<string, unknown>): ArmatureError {
  return new ArmatureError('REPLAY_DIVERGED', message, {
    details,
    hint: 'The system answered differently than when the run was recorded. A replay starts from the state its recording started from: replay it into a fresh workspace (armature agent --replay ... --data NEW-FOLDER), or, if the new answer is right, record the run again.',
  });
}

/** The recorded stream parts, as a stream the AI SDK reads. */
function playback(step: StepLine): ReadableStream<LanguageModelV3StreamPart> {
  const parts = [{ type: 'stream-start', warnings: [] }, ...step.response] as LanguageModelV3StreamPart[];
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p.type === 'error' ? { type: 'error', error: new Error(String((p.error as { message?: string })?.message ?? 'the recorded model failed')) } : p);
      controller.close();
    },
  });
}
