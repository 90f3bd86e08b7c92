import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventRecord } from '../../src/kernel/event-bus.ts';
import { applyEvent, emptyView, OUTPUT_LIMIT, viewFromTranscript } from './run-view.ts';

let seq = 0;
const rec = (type: string, payload: unknown) => ({ type, payload, at: 0, seq: ++seq }) as unknown as EventRecord;

test('events build the view of their run only; Python output lands under its call, bounded', () => {
  const v = emptyView('r1');
  assert.equal(applyEvent(v, rec('agent:run-started', { runId: 'r2', goal: 'other' })), false);
  applyEvent(v, rec('agent:run-started', { runId: 'r1', goal: 'g' }));
  applyEvent(v, rec('agent:text-delta', { runId: 'r1', step: 1, delta: 'Hel' }));
  applyEvent(v, rec('agent:text-delta', { runId: 'r1', step: 1, delta: 'lo' }));
  applyEvent(v, rec('agent:tool-called', { runId: 'r1', step: 1, toolCallId: 'c', name: 'execute_python', args: { code: 'x' }, pythonRunId: 'r1/1/c' }));
  assert.equal(applyEvent(v, rec('python:stdout', { runId: 'someone-else', chunk: 'no' })), false);
  applyEvent(v, rec('python:stdout', { runId: 'r1/1/c', chunk: 'a'.repeat(OUTPUT_LIMIT) }));
  applyEvent(v, rec('python:stderr', { runId: 'r1/1/c', chunk: 'oops' }));
  const call = v.turns[0]!.steps[0]!.calls[0]!;
  assert.equal(call.outputChars, OUTPUT_LIMIT);
  assert.equal(call.outputDropped, 4);
  assert.deepEqual(call.output.at(-1), { stream: 'stderr', text: 'oops' });
  applyEvent(v, rec('agent:tool-finished', { runId: 'r1', step: 1, toolCallId: 'c', name: 'execute_python', ok: true, durationMs: 5, result: { ok: true } }));
  applyEvent(v, rec('agent:run-finished', { runId: 'r1', reason: 'answered', steps: 1, usage: { inputTokens: 3, outputTokens: 4 } }));
  assert.equal(v.turns[0]!.steps[0]!.text, 'Hello');
  assert.equal(v.running, false);
  assert.deepEqual(v.usage, { inputTokens: 3, outputTokens: 4 });
});

test('a transcript reads back into the same shape, stdout from the results', () => {
  const v = viewFromTranscript('r', [
    { type: 'started', at: 1, runId: 'r', goal: 'g', persona: 'p', toolMode: 'code', maxSteps: 8, continued: false },
    { type: 'assistant', at: 2, step: 1, text: 'Working', message: {}, finishReason: 'tool-calls', usage: { inputTokens: 1, outputTokens: 1 } },
    { type: 'tool', at: 3, step: 1, toolCallId: 'c', name: 'execute_python', args: {}, ok: true, durationMs: 9, result: { ok: true, value: { value: null, stdout: 'out\n', stderr: '' } } },
    { type: 'started', at: 4, runId: 'r', goal: 'again', persona: 'p', toolMode: 'code', maxSteps: 8, continued: true },
  ]);
  assert.deepEqual(v.turns.map((t) => t.goal), ['g', 'again']);
  assert.equal(v.turns[0]!.steps[0]!.calls[0]!.output[0]!.text, 'out\n');
  assert.equal(v.turns[0]!.finished, undefined);
});
