import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeFrame, FrameReader, type FrameTooLargeError } from './frames.ts';

function collect(max: number) {
  const got = { messages: [] as unknown[], oversize: [] as number[], malformed: [] as string[] };
  const reader = new FrameReader(max, {
    message: (v) => got.messages.push(v),
    oversize: (n) => got.oversize.push(n),
    malformed: (e) => got.malformed.push(e.message),
  });
  return { reader, got };
}

test('frames survive any split into chunks, and keep structured-clone types', () => {
  const values = [{ type: 'call', id: 'k1', args: [1, 'two', null, undefined] }, new Uint8Array([1, 2, 3]), 'é'.repeat(1000), { m: new Map([[1, 2]]) }];
  const bytes = Buffer.concat(values.map((v) => encodeFrame(v)));
  for (const size of [1, 3, 7, 64, bytes.length]) {
    const { reader, got } = collect(1 << 20);
    for (let at = 0; at < bytes.length; at += size) reader.push(bytes.subarray(at, at + size));
    assert.deepEqual(got.messages, values, `chunks of ${size}`);
  }
});

test('an oversized frame is refused from its header and skipped; later frames still arrive', () => {
  const { reader, got } = collect(100);
  const big = encodeFrame('x'.repeat(1000));
  const small = encodeFrame({ ok: true });
  const all = Buffer.concat([big, small]);
  for (let at = 0; at < all.length; at += 50) reader.push(all.subarray(at, at + 50));
  assert.equal(got.oversize.length, 1);
  assert.ok(got.oversize[0]! > 1000);
  assert.deepEqual(got.messages, [{ ok: true }]);
});

test('encoding refuses past the limit with the size and the limit', () => {
  assert.throws(() => encodeFrame('y'.repeat(5000), 1000, 'the value'), (e: FrameTooLargeError) => e.code === 'MESSAGE_TOO_LARGE' && /^the value is \d+ bytes; the limit is 1000$/.test(e.message));
  assert.throws(() => encodeFrame({ f: () => 1 }), /could not be cloned/);
});

test('a malformed frame is reported, not thrown', () => {
  const { reader, got } = collect(100);
  const junk = Buffer.from([0, 0, 0, 3, 0xff, 0x0f, 0xaa]);
  reader.push(Buffer.concat([junk, encodeFrame(1)]));
  assert.equal(got.malformed.length, 1);
  assert.deepEqual(got.messages, [1]);
});
