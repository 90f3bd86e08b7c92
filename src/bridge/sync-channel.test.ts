import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeWorker } from '../../src/platform/node-worker.ts';
import { createSyncChannelBuffers, SyncChannelHost } from './sync-channel.ts';

type Reply = { type: string; id: number; status?: number; length?: number; sum?: number; reason?: string };

function setup(dataBytes: number) {
  const buffers = createSyncChannelBuffers(dataBytes);
  const interrupt = new SharedArrayBuffer(4);
  const worker = startNodeWorker(new URL('../../test/fixtures/channel-worker.ts', import.meta.url), { workerData: { buffers, interrupt } });
  const host = new SyncChannelHost(buffers);
  const replies: Reply[] = [];
  const waiters: ((r: Reply) => void)[] = [];
  worker.on('message', (r: Reply) => {
    replies.push(r);
    waiters.splice(0).forEach((w) => w(r));
  });
  const next = (pred: (r: Reply) => boolean) =>
    new Promise<Reply>((resolve) => {
      const found = replies.find(pred);
      if (found) return resolve(found);
      const check = (r: Reply) => (pred(r) ? resolve(r) : waiters.push(check));
      waiters.push(check);
    });
  return { worker, host, interrupt: new Int32Array(interrupt), next };
}

function payload(size: number): Uint8Array {
  const p = new Uint8Array(size);
  for (let i = 0; i < size; i++) p[i] = (i * 31 + 7) & 0xff;
  return p;
}

function checksum(p: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < p.length; i += 4093) sum = (sum + p[i]!) % 65521;
  return sum;
}

test('answers of any size arrive whole through a small data region, in order', async () => {
  const { worker, host, next } = setup(1024);
  try {
    for (const [id, size] of [[1, 0], [2, 10], [3, 1024], [4, 1025], [5, 200_000]] as const) {
      worker.postMessage({ op: 'call', id, size });
      await next((r) => r.type === 'request' && r.id === id);
      const p = payload(size);
      await host.respond(id, p, id === 3 ? 7 : 0);
      const done = await next((r) => r.type === 'done' && r.id === id);
      assert.deepEqual([done.length, done.sum, done.status], [size, checksum(p), id === 3 ? 7 : 0]);
    }
  } finally {
    await worker.terminate();
  }
});

test('a blocked worker gives up on timeout and on interrupt, and later calls still work (stale answers skipped)', async () => {
  const { worker, host, interrupt, next } = setup(64);
  try {
    worker.postMessage({ op: 'call', id: 10, size: 5, timeoutMs: 50 });
    assert.equal((await next((r) => r.id === 10 && r.type === 'aborted')).reason, 'timeout');
    worker.postMessage({ op: 'call', id: 11, size: 5 });
    await next((r) => r.type === 'request' && r.id === 11);
    Atomics.store(interrupt, 0, 2);
    assert.equal((await next((r) => r.id === 11 && r.type === 'aborted')).reason, 'interrupted');
    Atomics.store(interrupt, 0, 0);
    // The late answer to call 10 (multi-chunk) is consumed and skipped while the worker waits for 12.
    worker.postMessage({ op: 'call', id: 12, size: 100 });
    await next((r) => r.type === 'request' && r.id === 12);
    await host.respond(10, payload(300));
    const p = payload(100);
    await host.respond(12, p);
    const done = await next((r) => r.type === 'done' && r.id === 12);
    assert.deepEqual([done.length, done.sum], [100, checksum(p)]);
  } finally {
    await worker.terminate();
  }
});

test('the host stops waiting for a worker that is gone', async () => {
  const { worker, host } = setup(16);
  await worker.terminate();
  await assert.rejects(host.respond(1, payload(100), 0, 100), /the worker did not take the answer within 100 ms/);
});
