/**
 * The recording format (`armature-recording`, version 1): the model's side of an agent run, one
 * JSON object per line (JSON Lines), readable and diffable. A shared contract: the Agent records
 * and replays it (upgrades/agent/replay/), the CLI reads a recording's header before it boots.
 *
 * ```
 * {"type":"recording","format":"armature-recording","version":1,"run":"run-…","persona":"default","toolMode":"code",...}
 * {"type":"turn","turn":1,"goal":"Add up the numbers in data/numbers.txt ..."}
 * {"type":"step","turn":1,"step":1,"request":{"digest":"sha256:…","system":"sha256:…","tools":"sha256:…","messages":[...]},"response":[...]}
 * ```
 *
 * - The header comes first: who ran it (`persona`, `toolMode`, the `model` it was recorded with),
 *   optionally a `title`, a `description`, a `label` (how it was made: e.g. a scripted model) and
 *   the `workspace` files a replay writes before its first turn.
 * - A `turn` line for each goal (the first, then each follow-up), then its steps.
 * - A `step` line for each model request: the request's digests (sha256 of the whole request, of
 *   its system prompt and of its tools, each computed over {@link normalize}d JSON) and the
 *   messages that were new in it — the goal on a turn's first step, the tool results the model
 *   saw on the others — and the model's streamed answer: the stream parts it sent (text deltas,
 *   tool calls, the finish with its usage), in order.
 *
 * Nothing secret is written: every line passes through the agent's key masking first, and the
 * request's headers (where keys travel) are not part of it.
 */
import * as z from 'zod';
import { ArmatureError } from '../kernel/errors.ts';

/** The `format` every recording names. */
export const RECORDING_FORMAT = 'armature-recording';

/** The version of the format this Armature writes and reads. */
export const RECORDING_VERSION = 1;

const ModelSchema = z.object({ provider: z.string().min(1), model: z.string().min(1) });

/** The first line. */
export const RecordingHeaderSchema = z.object({
  type: z.literal('recording'),
  format: z.literal(RECORDING_FORMAT),
  version: z.number().int(),
  /** The run it was recorded from. */
  run: z.string().min(1),
  recordedAt: z.string().min(1),
  persona: z.string().min(1),
  toolMode: z.enum(['code', 'direct']),
  model: ModelSchema.optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  /** How it was made, for people: e.g. "recorded with Armature's scripted model". */
  label: z.string().optional(),
  /** Files a replay writes into the workspace before the first turn (missing ones; others must match). */
  workspace: z.object({ files: z.array(z.object({ path: z.string().min(1), content: z.string() })) }).optional(),
});

/** A goal: the run's first, or a follow-up. */
export const TurnLineSchema = z.object({ type: z.literal('turn'), turn: z.number().int().min(1), goal: z.string() });

/** What a step's request is recorded as. */
export const RecordedRequestSchema = z.object({
  /** sha256 of the whole request: system prompt, tools and every message. */
  digest: z.string(),
  /** sha256 of the system prompt. */
  system: z.string(),
  /** sha256 of the tools offered. */
  tools: z.string(),
  /** The messages new in this request: the goal (a turn's first step) or the tool results the model saw. */
  messages: z.array(z.unknown()),
});

/** One model request and its streamed answer. */
export const StepLineSchema = z.object({
  type: z.literal('step'),
  turn: z.number().int().min(1),
  /** The step's number in the run (steps are numbered across turns). */
  step: z.number().int().min(1),
  request: RecordedRequestSchema,
  /** The stream parts of the model's answer, in order. */
  response: z.array(z.object({ type: z.string() }).loose()),
});

export type RecordingHeader = z.infer<typeof RecordingHeaderSchema>;
export type TurnLine = z.infer<typeof TurnLineSchema>;
export type StepLine = z.infer<typeof StepLineSchema>;
export type RecordedRequest = z.infer<typeof RecordedRequestSchema>;
/** Any line of a recording. */
export type RecordingLine = RecordingHeader | TurnLine | StepLine;

/** A recording, read. */
export interface Recording {
  header: RecordingHeader;
  turns: { goal: string; steps: StepLine[] }[];
  /** Where it was read from, for messages. */
  source: string;
}

/** Where `run({ record })` writes a recording, line by line (each already masked). */
export interface RecordingSink {
  /** One line of the recording (JSON and a newline). */
  write(line: string): void;
  /** Fields the header gets besides those the run knows (a title, a description, a label, the workspace files). Default: none. */
  header?: Pick<RecordingHeader, 'title' | 'description' | 'label' | 'workspace'>;
}

/** The files a recording name may mean: a `.jsonl` file as is; a folder's `recording.jsonl`. */
export function recordingPaths(name: string): string[] {
  const clean = name.replace(/\/+$/, '');
  return clean.endsWith('.jsonl') ? [clean] : [`${clean}/recording.jsonl`, `${clean}.jsonl`];
}

/** One line of the file. */
export const recordingLine = (line: RecordingLine): string => `${JSON.stringify(line)}\n`;

const bad = (source: string, line: number, what: string) =>
  new ArmatureError('RECORDING_INVALID', `[agent] ${source}:${line}: ${what}`, {
    hint: `A recording is JSON Lines: a "recording" header, then "turn" and "step" lines, as armature agent --record writes them (format ${RECORDING_FORMAT} version ${RECORDING_VERSION}).`,
  });

/** Reads a recording; throws `RECORDING_INVALID` naming the line and what is wrong with it. */
export function parseRecording(text: string, source: string): Recording {
  const lines = text.split('\n').map((l, i) => ({ l: l.trim(), n: i + 1 })).filter((x) => x.l);
  if (!lines.length) throw bad(source, 1, 'the file is empty');
  const json = ({ l, n }: { l: string; n: number }): unknown => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw bad(source, n, `not JSON (${(e as Error).message.slice(0, 120)})`);
    }
  };
  const first = json(lines[0]!) as { type?: unknown; format?: unknown; version?: unknown };
  if (first?.type !== 'recording' || first.format !== RECORDING_FORMAT) throw bad(source, lines[0]!.n, `the first line is not a ${RECORDING_FORMAT} header`);
  if (first.version !== RECORDING_VERSION) {
    throw new ArmatureError('RECORDING_VERSION', `[agent] ${source} is ${RECORDING_FORMAT} version ${String(first.version)}; this Armature reads version ${RECORDING_VERSION}`, {
      hint: 'Record the run again with this version of Armature, or replay it with the version that recorded it.',
    });
  }
  const header = check(RecordingHeaderSchema, first, source, lines[0]!.n);
  const turns: Recording['turns'] = [];
  for (const x of lines.slice(1)) {
    const v = json(x) as { type?: unknown };
    if (v?.type === 'turn') {
      const t = check(TurnLineSchema, v, source, x.n);
      if (t.turn !== turns.length + 1) throw bad(source, x.n, `turn ${t.turn} follows turn ${turns.length}`);
      turns.push({ goal: t.goal, steps: [] });
    } else if (v?.type === 'step') {
      const s = check(StepLineSchema, v, source, x.n);
      if (s.turn !== turns.length) throw bad(source, x.n, `a step of turn ${s.turn} where turn ${turns.length} is being recorded`);
      turns.at(-1)!.steps.push(s);
    } else {
      throw bad(source, x.n, `unknown line type ${JSON.stringify(v?.type ?? null)}`);
    }
  }
  if (!turns.length) throw bad(source, lines.at(-1)!.n, 'the recording has no turn');
  return { header, turns, source };
}

function check<T>(schema: z.ZodType<T>, value: unknown, source: string, line: number): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw bad(source, line, `${issue.path.join('.') || 'the line'}: ${issue.message}`);
}
