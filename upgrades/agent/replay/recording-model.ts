/**
 * Recording: the run's real model wrapped with the AI SDK's own middleware (`wrapLanguageModel`),
 * so that each request is described (its digests and new messages) and the model's streamed answer
 * is copied, part by part, as it passes through to the agent unchanged.
 */
import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { LanguageModel, LanguageModelMiddleware } from 'ai';
import { peerMissing } from '../../../src/kernel/optional-peer.ts';
import type { StepLine } from '../../../src/contracts/recording-format.ts';
import { describeRequest } from './request-view.ts';

/** Stream parts a recording keeps: what the model said. Metadata, raw chunks and the tool input's pieces (the tool call holds it whole) are left out. */
const KEPT: ReadonlySet<string> = new Set(['text-start', 'text-delta', 'text-end', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'tool-call', 'finish', 'error']);

/** A stream part as a recording keeps it: plain JSON, without provider metadata. */
export function keptPart(part: LanguageModelV3StreamPart): Record<string, unknown> | undefined {
  if (!KEPT.has(part.type)) return undefined;
  const { providerMetadata: _m, ...rest } = part as LanguageModelV3StreamPart & { providerMetadata?: unknown };
  if (rest.type === 'error') return { type: 'error', error: { message: (rest.error as Error)?.message ?? String(rest.error) } };
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** Text arriving in pieces, masked across them (the Agent's `StreamRedactor`). */
export interface PieceMask {
  /** What can be kept now of what was held and `piece`. */
  push(piece: string): string;
  /** What it still holds, at the end of the text. */
  flush(): string;
}

/**
 * A recorded response with each streamed text (and reasoning) masked across its pieces: a key the
 * model echoes split over pieces (`"sk-MAR" | "KER-abc1" | "23XYZ"`) passes a mask of each piece
 * alone. Pieces keep their order; a piece may come out shorter, what was held is flushed as one more
 * piece before the text's end.
 */
export function maskPieces(response: readonly Record<string, unknown>[], fresh: () => PieceMask): Record<string, unknown>[] {
  const open = new Map<string, PieceMask>();
  const out: Record<string, unknown>[] = [];
  const flush = (type: string, id: string) => {
    const rest = open.get(`${type}:${id}`)?.flush();
    open.delete(`${type}:${id}`);
    if (rest) out.push({ type, id, delta: rest });
  };
  for (const part of response) {
    const type = String(part.type);
    const id = String(part.id);
    if ((type === 'text-delta' || type === 'reasoning-delta') && typeof part.delta === 'string') {
      const key = `${type}:${id}`;
      if (!open.has(key)) open.set(key, fresh());
      out.push({ ...part, delta: open.get(key)!.push(part.delta) });
      continue;
    }
    if (type === 'text-end' || type === 'reasoning-end') flush(type.replace('-end', '-delta'), id);
    out.push(part);
  }
  for (const key of [...open.keys()]) {
    const [type, id] = key.split(/:(.*)/s) as [string, string];
    flush(type, id);
  }
  return out;
}

/** Where a recorded step goes, with the turn and step it belongs to. */
export interface StepSink {
  /** The turn and step the next request is (the agent knows; the model does not). */
  position(): { turn: number; step: number };
  write(line: StepLine): void;
}

/**
 * `model` recording each streamed request into `sink`. A request that fails before it streams
 * (a refused key, a server that cannot be reached) is not recorded: a replay cannot answer for a
 * server; the run's error says what happened.
 */
export async function recordingModel(model: LanguageModel, sink: StepSink): Promise<LanguageModelV3> {
  // The AI SDK is an optional peer: imported here, not at the top, so a bundle of the package
  // resolves without it (a run that records then says what to install).
  const { wrapLanguageModel } = await import('ai').catch(peerMissing('ai', 'Agent'));
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    async wrapStream({ doStream, params }) {
      const { turn, step } = sink.position();
      const request = await describeRequest(params);
      const result = await doStream();
      const response: Record<string, unknown>[] = [];
      const copy = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          const kept = keptPart(part);
          if (kept) response.push(kept);
          controller.enqueue(part);
        },
        flush() {
          sink.write({ type: 'step', turn, step, request, response: response as StepLine['response'] });
        },
      });
      return { ...result, stream: result.stream.pipeThrough(copy) };
    },
  };
  return wrapLanguageModel({ model: model as LanguageModelV3, middleware });
}
