import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeWorker } from '../../src/platform/node-worker.ts';
import { createSyncChannelBuffers, SyncChannelHost } from './sync-channel.ts';

type Reply = { type: string; id: number; shared?: boolean; status?: number; length?: number; sum?: number; reason?: string; text?: string; outcome?: string; outcomes?: string[]; echoes?: string[] };

function setup(dataBytes: number, requestBytes?: number, maxDataBytes = dataBytes) {
  const buffers = createSyncChannelBuffers({ dataBytes, maxDataBytes, requestBytes });
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
  return { worker, host, interrupt: new Int32Array(interrupt), next, replies, buffers };
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

const echo = (text: string) => new TextEncoder().encode(text);

test('a request in the slot is taken exactly once, with its text intact; the host is told when it is not polling', async () => {
  const { worker, host, next } = setup(1024);
  try {
    const text = '{"name":"tiny","args":{"q":"naïve 😀 日本"}}';
    worker.postMessage({ op: 'offer', id: 1, text, count: 1 });
    const ready = await next((r) => r.type === 'notify' && r.id === 1);
    assert.equal(ready.text, text);
    const taken = host.takeRequest();
    assert.deepEqual(taken, { callId: 1, text });
    assert.equal(host.takeRequest(), undefined, 'a request is handed out once');
    await host.respond(1, echo(`answer to ${taken!.text}`));
    const done = await next((r) => r.type === 'offers-done');
    assert.deepEqual(done.outcomes, ['notify']);
    assert.deepEqual(done.echoes, [`answer to ${text}`]);
  } finally {
    await worker.terminate();
  }
});

test('while the host polls, the worker sends nothing; a request that arrives as polling stops is handed over', async () => {
  const { worker, host, next, replies } = setup(1024);
  try {
    assert.equal(host.setPolling(true), undefined);
    worker.postMessage({ op: 'offer-only', id: 7, text: 'seven' });
    assert.equal((await next((r) => r.type === 'offered')).outcome, 'polled');
    // The worker saw the host polling and posted nothing, so stopping must return the request.
    assert.deepEqual(host.setPolling(false), { callId: 7, text: 'seven' });
    assert.equal(host.takeRequest(), undefined);
    worker.postMessage({ op: 'offer-only', id: 8, text: 'eight' });
    assert.equal((await next((r) => r.type === 'offered' && r.id === 8)).outcome, 'notify');
    assert.equal(replies.filter((r) => r.type === 'notify').length, 0, 'offer-only posts no message itself');
  } finally {
    await worker.terminate();
  }
});

test('a request given up on is replaced by the next one; a request too large for the slot goes by message', async () => {
  const { worker, host, next } = setup(1024, 64);
  try {
    worker.postMessage({ op: 'offer-only', id: 20, text: 'stale' });
    await next((r) => r.type === 'offered' && r.id === 20);
    worker.postMessage({ op: 'offer-only', id: 21, text: 'fresh' });
    await next((r) => r.type === 'offered' && r.id === 21);
    assert.deepEqual(host.takeRequest(), { callId: 21, text: 'fresh' });
    assert.equal(host.takeRequest(), undefined);
    // 64 bytes of region: 30 three-byte characters do not fit.
    worker.postMessage({ op: 'offer', id: 30, text: '日'.repeat(30), count: 1 });
    const big = await next((r) => r.type === 'too-large');
    assert.equal(big.text, '日'.repeat(30));
    assert.equal(host.takeRequest(), undefined, 'the slot stays empty');
    await host.respond(30, echo('ok'));
    assert.deepEqual((await next((r) => r.type === 'offers-done')).echoes, ['ok']);
  } finally {
    await worker.terminate();
  }
});

test('the answer region grows to carry an answer whole, and an answer can be written straight into it', async () => {
  const { worker, host, next, buffers } = setup(1024, undefined, 1024 * 1024);
  try {
    worker.postMessage({ op: 'call', id: 1, size: 200_000 });
    await next((r) => r.type === 'request' && r.id === 1);
    const p = payload(200_000);
    await host.respond(1, p);
    const done = await next((r) => r.type === 'done' && r.id === 1);
    assert.deepEqual([done.length, done.sum], [200_000, checksum(p)]);
    assert.ok(buffers.data.byteLength >= 200_000, `grew to ${buffers.data.byteLength}`);
    // In place: written into the region through answerTarget, then published without a copy.
    worker.postMessage({ op: 'call', id: 2, size: 300_000 });
    await next((r) => r.type === 'request' && r.id === 2);
    const target = host.answerTarget();
    assert.ok(target, 'the region is free');
    const region = target.grow(300_000);
    assert.ok(region && region.length >= 300_000);
    const q = payload(300_000);
    region.set(q);
    await host.respond(2, region.subarray(0, 300_000));
    const done2 = await next((r) => r.type === 'done' && r.id === 2);
    assert.deepEqual([done2.length, done2.sum], [300_000, checksum(q)]);
    assert.equal(target.grow(2 * 1024 * 1024), undefined, 'not beyond its maximum');
  } finally {
    await worker.terminate();
  }
});

test('an answer read in place holds the region: nothing is written over it until the worker releases it', async () => {
  const { worker, host, next } = setup(4096, undefined, 4096);
  try {
    worker.postMessage({ op: 'call', id: 1, size: 3000, view: true });
    await next((r) => r.type === 'request' && r.id === 1);
    const p = payload(3000);
    await host.respond(1, p);
    const done = await next((r) => r.type === 'done' && r.id === 1);
    assert.deepEqual([done.length, done.sum, done.shared], [3000, checksum(p), true]);
    assert.equal(host.answerTarget(), undefined, 'held: no in-place encoding');
    assert.equal(host.clientWaitsFor(1), true);
    let taken = false;
    const whenTaken = host.whenTaken().then(() => (taken = true));
    let written = false;
    const stale = host.respond(99, payload(10)).then(() => (written = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(written, false, 'a later answer waits for the release');
    assert.equal(taken, false, 'not taken while held');
    worker.postMessage({ op: 'release' });
    await next((r) => r.type === 'released');
    // The next call skips the stale answer (taking it), then gets its own; multi-chunk answers
    // are copied, never held.
    worker.postMessage({ op: 'call', id: 2, size: 10_000, view: true });
    await next((r) => r.type === 'request' && r.id === 2);
    const q = payload(10_000);
    await host.respond(2, q);
    const done2 = await next((r) => r.type === 'done' && r.id === 2);
    assert.deepEqual([done2.length, done2.sum, done2.shared], [10_000, checksum(q), false]);
    assert.deepEqual([host.clientWaitsFor(1), host.clientWaitsFor(2)], [false, true], 'the client moved on to call 2');
    await stale;
    assert.equal(written, true);
    await whenTaken;
  } finally {
    await worker.terminate();
  }
});
