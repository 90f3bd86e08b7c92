// The provider library's mock model playing a script (see model-script.ts): each doStream call
// answers with the next turn, synchronously enqueued, so no model time is spent.
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { argsText, isFailure, textPieces, type ScriptedAnswer, type ScriptTurn } from './model-script.ts';

/** A turn for the mock: a scripted answer, an error to throw, or a function of the call. */
export type MockTurn = ScriptTurn | { throw: unknown } | ((call: LanguageModelV3CallOptions) => ScriptedAnswer | { throw: unknown });

/** The stream parts of one scripted answer. */
export function answerParts(a: ScriptedAnswer, turn: number): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  const pieces = textPieces(a.text);
  if (pieces.length) {
    parts.push({ type: 'text-start', id: `t${turn}` });
    for (const delta of pieces) parts.push({ type: 'text-delta', id: `t${turn}`, delta });
    parts.push({ type: 'text-end', id: `t${turn}` });
  }
  (a.toolCalls ?? []).forEach((c, i) => parts.push({ type: 'tool-call', toolCallId: c.id ?? `call_${turn}_${i}`, toolName: c.name, input: argsText(c.args) }));
  const usage = a.usage ?? { input: 100, output: 10 };
  const reason = a.finishReason ?? (a.toolCalls?.length ? 'tool_calls' : 'stop');
  parts.push({
    type: 'finish',
    finishReason: { unified: reason === 'tool_calls' ? 'tool-calls' : reason, raw: reason },
    usage: {
      inputTokens: { total: usage.input, noCache: usage.input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: usage.output, text: usage.output, reasoning: undefined },
    },
  });
  return parts;
}

/** A stream that yields `parts` at once, or waits for `hold` before the finish part. */
export function partsStream(parts: LanguageModelV3StreamPart[], hold?: Promise<void>): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    async start(controller) {
      for (const p of parts) {
        if (p.type === 'finish' && hold !== undefined) await hold;
        controller.enqueue(p);
      }
      controller.close();
    },
  });
}

/** A mock model playing `turns` in order; past the end it answers "(script over)". */
export function scriptedMockModel(turns: readonly MockTurn[], options: { hold?: (turn: number) => Promise<void> | undefined } = {}): MockLanguageModelV3 {
  let n = 0;
  const model: MockLanguageModelV3 = new MockLanguageModelV3({
    provider: 'mock',
    modelId: 'scripted',
    doStream: async (call) => {
      const turn = n++;
      let t: MockTurn = turns[turn] ?? { text: '(script over)' };
      if (typeof t === 'function') t = t(call as never);
      if ('throw' in t) throw t.throw;
      if (isFailure(t)) {
        throw new APICallError({
          message: `HTTP ${t.status}`,
          url: 'http://mock.invalid/v1/chat/completions',
          requestBodyValues: {},
          statusCode: t.status,
          responseBody: JSON.stringify(t.body ?? { error: { message: `scripted ${t.status}` } }),
        });
      }
      return { stream: partsStream(answerParts(t, turn), options.hold?.(turn)) };
    },
  });
  return model;
}
