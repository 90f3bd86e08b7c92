import type { ModelMessage, ToolResultPart } from 'ai';
import type { TranscriptEntry } from '../../src/contracts/agent-contract.ts';

/** The tool-result part the model gets for one call. */
export function toolResultPart(toolCallId: string, toolName: string, ok: boolean, result: unknown): ToolResultPart {
  const value = (result ?? null) as Extract<ToolResultPart['output'], { type: 'json' }>['value'];
  return { type: 'tool-result', toolCallId, toolName, output: ok ? { type: 'json', value } : { type: 'error-json', value } };
}

const INTERRUPTED = {
  ok: false,
  error: { code: 'INTERRUPTED', message: 'the run stopped before this call finished' },
  hint: 'Call the tool again if you still need its result.',
};

/**
 * The conversation a transcript holds, as the provider library's messages: each goal a user
 * message, each step the assistant message the model sent, then one tool message with the result
 * of each of its calls. A call whose result never made it into the transcript (the page was
 * reloaded mid-call) gets an `INTERRUPTED` result: providers reject a call left unanswered.
 */
export function toModelMessages(entries: readonly TranscriptEntry[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let calls: { toolCallId: string; toolName: string }[] = [];
  let results = new Map<string, ToolResultPart>();
  const closeStep = () => {
    if (calls.length) out.push({ role: 'tool', content: calls.map((c) => results.get(c.toolCallId) ?? toolResultPart(c.toolCallId, c.toolName, false, INTERRUPTED)) });
    calls = [];
    results = new Map();
  };
  for (const e of entries) {
    if (e.type === 'started') {
      closeStep();
      out.push({ role: 'user', content: e.goal });
    } else if (e.type === 'assistant') {
      closeStep();
      const message = e.message as ModelMessage;
      out.push(message);
      if (Array.isArray(message.content)) {
        for (const part of message.content) if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName });
      }
    } else if (e.type === 'tool') {
      results.set(e.toolCallId, toolResultPart(e.toolCallId, e.name, e.ok, e.result));
    }
  }
  closeStep();
  return out;
}
