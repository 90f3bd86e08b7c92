import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeWorker } from '../platform/node-worker.ts';
import { createOutputRing, OUTPUT_KIND, OutputRingReader, OutputRingWriter, type OutputKind } from './output-ring.ts';

const expected = (lines: number, kind: OutputKind) =>
  Array.from({ length: lines }, (_, i) => i)
    .filter((i) => (i % 7 === 0 ? OUTPUT_KIND.stderr : OUTPUT_KIND.stdout) === kind)
    .map((i) => `line ${i} ${i % 5 === 0 ? 'é😀✓'.repeat(i % 40) : ''}\n`)
    .join('');

test('a worker streams through a ring much smaller than its output: everything arrives in order (long lines split, characters cut between records), in few messages', async () => {
  const ring = createOutputRing(512);
  const lines = 20_000;
  const worker = startNodeWorker(new URL('../../test/fixtures/ring-worker.ts', import.meta.url), { workerData: { ring, lines } });
  const reader = new OutputRingReader(ring);
  const text = { [OUTPUT_KIND.stdout]: '', [OUTPUT_KIND.stderr]: '' } as Record<number, string>;
  const decoders = { [OUTPUT_KIND.stdout]: new TextDecoder(), [OUTPUT_KIND.stderr]: new TextDecoder() } as Record<number, TextDecoder>;
  let messages = 0;
  let records = 0;
  const drain = () =>
    reader.drain((kind, payload) => {
      records++;
      text[kind] += decoders[kind]!.decode(payload, { stream: true });
    });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('message', (m: string) => {
        if (m === 'ring') messages++;
        drain();
        if (m === 'done') resolve();
      });
    });
    drain();
  } finally {
    await worker.terminate();
  }
  assert.equal(text[OUTPUT_KIND.stdout], expected(lines, OUTPUT_KIND.stdout));
  assert.equal(text[OUTPUT_KIND.stderr], expected(lines, OUTPUT_KIND.stderr));
  assert.ok(records >= lines, `records ${records}`);
  assert.ok(messages < lines, `one message per drain, not per write: ${messages} for ${lines} writes`);
});

test('positions keep working across the 32-bit wrap; the ring size must be a power of two', () => {
  const ring = createOutputRing(64);
  const control = new Int32Array(ring, 0, 4);
  const writer = new OutputRingWriter(ring, { ring: () => undefined });
  const reader = new OutputRingReader(ring);
  for (const start of [0x7ffffff0, -16]) {
    control[0] = start;
    control[1] = start;
    const got: string[] = [];
    for (let i = 0; i < 40; i++) {
      writer.write(OUTPUT_KIND.stdout, new TextEncoder().encode(`#${i}`));
      reader.drain((_k, p) => got.push(new TextDecoder().decode(p)));
    }
    assert.deepEqual(got, Array.from({ length: 40 }, (_, i) => `#${i}`), `from ${start}`);
  }
  assert.throws(() => new OutputRingReader(new SharedArrayBuffer(16 + 100)), /power of two, got 100/);
});

test('a bounded drain takes whole records up to its budget and says more are left, keeping the doorbell rung', () => {
  const ring = createOutputRing(1024);
  let rings = 0;
  const writer = new OutputRingWriter(ring, { ring: () => rings++ });
  const reader = new OutputRingReader(ring);
  for (let i = 0; i < 10; i++) writer.write(OUTPUT_KIND.stdout, new Uint8Array(50).fill(i));
  assert.equal(rings, 1, 'one doorbell for ten writes');
  const got: number[] = [];
  assert.equal(reader.drain((_k, p) => got.push(p[0]!), 120), true);
  assert.deepEqual(got, [0, 1, 2], 'records until the budget is reached, none cut');
  writer.write(OUTPUT_KIND.stdout, new Uint8Array(50).fill(10));
  assert.equal(rings, 1, 'still rung: the reader drains again by itself');
  assert.equal(reader.drain((_k, p) => got.push(p[0]!)), false);
  assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  writer.write(OUTPUT_KIND.stdout, new Uint8Array(1));
  assert.equal(rings, 2, 'after a full drain the next write rings again');
});
