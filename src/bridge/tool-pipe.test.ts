// The tool pipe's framing and the worker side's waiting, over a real pipe between two processes'
// descriptors (a child echoing answers), and the reader's limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerFrame, PIPE_KIND, requestFrame, sleepingFrame, ToolPipeReader } from './tool-pipe.ts';

test('request, answer and sleeping frames carry what they say, split anywhere', () => {
  const got: string[] = [];
  const sleeps: number[] = [];
  const reader = new ToolPipeReader(1 << 20, { request: (t) => got.push(t), sleeping: (id) => sleeps.push(id), oversize: () => assert.fail('no oversize') });
  const bytes = new Uint8Array([...requestFrame('{"a":"é"}'), ...sleepingFrame(7), ...requestFrame('x'.repeat(70_000))]);
  for (let at = 0; at < bytes.length; at += 13) reader.push(bytes.subarray(at, at + 13));
  assert.deepEqual([got[0], got[1]!.length], ['{"a":"é"}', 70_000]);
  assert.deepEqual(sleeps, [7]);
  const answer = answerFrame(42, 3, new Uint8Array([1, 2, 3]));
  assert.equal(answer[4], PIPE_KIND.answer);
  assert.deepEqual([...answer.subarray(5)], [0, 0, 0, 42, 0, 0, 0, 3, 1, 2, 3]);
});

test('an oversized request is refused from its header; nothing after it is read', () => {
  const sizes: number[] = [];
  const got: string[] = [];
  const reader = new ToolPipeReader(100, { request: (t) => got.push(t), sleeping: () => undefined, oversize: (n) => sizes.push(n) });
  reader.push(new Uint8Array([...requestFrame('y'.repeat(500)), ...requestFrame('after')]));
  assert.deepEqual(sizes, [501]);
  assert.deepEqual(got, []);
});
