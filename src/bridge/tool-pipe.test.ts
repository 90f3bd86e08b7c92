// The tool pipe's framing, the reader's limits, and the worker side's client over a scripted
// descriptor (the real pipe between host and confined child is tested with the runtime).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerFrame, PIPE_KIND, requestFrame, sleepingFrame, ToolPipeClient, ToolPipeInterrupted, ToolPipeReader, type SyncFs } from './tool-pipe.ts';

/** A descriptor that hands out `chunks` one per read (EAGAIN between them when told to) and keeps what is written. */
function scriptedFs(chunks: Uint8Array[], emptyReadsBetween = 0) {
  const written: Uint8Array[] = [];
  let empty = 0;
  let drained = 0;
  const fs: SyncFs = {
    readSync(_fd, buffer, offset, length) {
      if (empty < emptyReadsBetween || chunks.length === 0) {
        // A client still reading long after the script ran out fails the test instead of waiting forever.
        if (chunks.length === 0 && ++drained > 1000) throw new Error('read past the end of the script');
        empty++;
        throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
      }
      empty = 0;
      const chunk = chunks[0]!;
      const n = Math.min(length, chunk.length);
      buffer.set(chunk.subarray(0, n), offset);
      if (n === chunk.length) chunks.shift();
      else chunks[0] = chunk.subarray(n);
      return n;
    },
    writeSync(_fd, buffer, offset = 0, length = buffer.length - offset) {
      written.push(buffer.slice(offset, offset + length));
      return length;
    },
  };
  return { fs, written };
}

const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
};

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

test('the client skips stale answers and reads answers split anywhere, several to a read, or larger than its buffer', () => {
  const big = new Uint8Array(200_000).map((_, i) => i % 251);
  const frames = [answerFrame(6, 0, new Uint8Array([9])), answerFrame(7, 0, new Uint8Array([1, 2, 3])), answerFrame(8, 1, new Uint8Array([4, 5])), answerFrame(9, 0, big)];
  const stream = join(...frames);
  // A header split in two; then the rest of 6, all of 7 and 8 and the start of 9 in one read; then 9 in large pieces.
  const cuts = [0, 3, frames[0]!.length + frames[1]!.length + frames[2]!.length + 1000];
  for (let at = cuts.at(-1)! + 70_000; at < stream.length; at += 70_000) cuts.push(at);
  cuts.push(stream.length);
  const { fs } = scriptedFs(cuts.slice(1).map((end, i) => stream.subarray(cuts[i], end)), 3);
  const client = new ToolPipeClient(3, fs, new Int32Array(new SharedArrayBuffer(4)));
  const first = client.receive(7);
  assert.deepEqual([first.status, [...first.payload]], [0, [1, 2, 3]], 'the stale answer to call 6 was skipped');
  const second = client.receive(8);
  assert.deepEqual([second.status, [...second.payload]], [1, [4, 5]]);
  const third = client.receive(9);
  assert.equal(third.payload.length, big.length);
  assert.ok(third.payload.every((b, i) => b === i % 251));
});

test('the client frames requests as the host reads them: non-ASCII text, and longer than its first buffer', () => {
  const { fs, written } = scriptedFs([]);
  const client = new ToolPipeClient(3, fs, new Int32Array(new SharedArrayBuffer(4)));
  const texts = ['{"path":"é/日本/\u{1F600}"}', `{"content":"${'ü'.repeat(5000)}"}`, '{}'];
  for (const t of texts) client.send(t);
  const got: string[] = [];
  const reader = new ToolPipeReader(1 << 20, { request: (t) => got.push(t), sleeping: () => assert.fail('no sleep'), oversize: () => assert.fail('no oversize') });
  reader.push(join(...written));
  assert.deepEqual(got, texts);
  // Each frame: its length (the UTF-8 body and the kind byte), the request kind, the body.
  for (const [i, t] of texts.entries()) {
    const body = new TextEncoder().encode(t);
    const frame = written[i]!;
    assert.deepEqual([new DataView(frame.buffer).getUint32(0), frame[4], frame.length], [body.length + 1, PIPE_KIND.request, body.length + 5]);
    assert.deepEqual(frame.subarray(5), body);
  }
});

test('an interrupt ends a wait for an answer that does not come', () => {
  const { fs } = scriptedFs([]);
  const interrupt = new Int32Array(new SharedArrayBuffer(4));
  interrupt[0] = 2;
  const client = new ToolPipeClient(3, fs, new Int32Array(new SharedArrayBuffer(4)), interrupt);
  assert.throws(() => client.receive(1), ToolPipeInterrupted);
});
