/**
 * One message from the persona's model, without tools or a transcript: what an MCP server asks for
 * with `sampling/createMessage` (the McpClient answers through `AgentApi.complete`). The model is
 * the one a run would use, with the same key rules; errors are the run's readable ones.
 */
import type { LanguageModel } from 'ai';
import type { CompleteRequest, CompleteResult } from '../../src/contracts/agent-contract.ts';
import { peerMissing } from '../../src/kernel/optional-peer.ts';

/**
 * Asks `model` once, streaming as a run does (the same requests reach the provider). Throws what the
 * provider library reported (the caller describes it).
 */
export async function completeOnce(model: LanguageModel, request: CompleteRequest, maxRetries: number): Promise<Omit<CompleteResult, 'model'>> {
  const { streamText } = await import('ai').catch(peerMissing('ai', 'Agent'));
  let failure: unknown;
  const r = streamText({
    model,
    ...(request.system ? { system: request.system } : {}),
    messages: request.messages.map((m) => ({ role: m.role, content: m.text })),
    maxOutputTokens: request.maxTokens,
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.stopSequences?.length ? { stopSequences: request.stopSequences } : {}),
    maxRetries,
    ...(request.signal ? { abortSignal: request.signal } : {}),
    // Reported once, by the caller, readable and redacted (the default prints the raw error).
    onError: ({ error }) => void (failure ??= error),
  });
  let text = '';
  for await (const delta of r.textStream) text += delta;
  if (failure !== undefined) throw failure;
  const [finishReason, usage] = await Promise.all([r.finishReason, r.totalUsage]);
  const stopReason = finishReason === 'length' ? 'maxTokens' : finishReason === 'stop' ? 'endTurn' : finishReason;
  return { text, stopReason, usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 } };
}
