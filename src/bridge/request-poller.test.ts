import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeWorker } from '../platform/node-worker.ts';
import { RequestPoller } from './request-poller.ts';
import { createSyncChannelBuffers, SyncChannelClient, SyncChannelHost, type SlotRequest } from './sync-channel.ts';

type Reply = { type: string; id: number; outcomes?: string[]; echoes?: string[] };

/** A worker making `count` calls in a row and a host answering each with its request text. */
async function calls(windowMs: number, count: number): Promise<{ outcomes: string[]; echoes: string[]; slot: number; messages: number; poller: RequestPoller }> {
  const buffers = createSyncChannelBuffers({ dataBytes: 1024 });
  const worker = startNodeWorker(new URL('../../test/fixtures/channel-worker.ts', import.meta.url), { workerData: { buffers, interrupt: new SharedArrayBuffer(4) } });
  const host = new SyncChannelHost(buffers);
  let slot = 0;
  let messages = 0;
  const answer = (r: SlotRequest) => {
    // Watch first: the worker asks again as soon as it has the answer.
    poller.watch();
    void host.respond(r.callId, new TextEncoder().encode(`${r.callId}:${r.text}`));
  };
  const poller = new RequestPoller(host, (r) => {
    slot++;
    answer(r);
  }, { windowMs });
  try {
    const done = new Promise<Reply>((resolve) =>
      worker.on('message', (m: Reply) => {
        if (m.type === 'notify') {
          messages++;
          const r = host.takeRequest();
          if (r) answer(r);
        }
        if (m.type === 'offers-done') resolve(m);
      }),
    );
    worker.postMessage({ op: 'offer', id: 100, text: 'ping', count });
    const m = await done;
    return { outcomes: m.outcomes!, echoes: m.echoes!, slot, messages, poller };
  } finally {
    await worker.terminate();
  }
}

test('calls in a row after the first reach a polling host through the slot alone, each answered once', async () => {
  const r = await calls(5_000, 50);
  r.poller.dispose();
  assert.equal(r.outcomes[0], 'notify', 'the first call wakes the host');
  assert.deepEqual(new Set(r.outcomes.slice(1)), new Set(['polled']));
  assert.deepEqual(r.echoes, Array.from({ length: 50 }, (_, i) => `${100 + i}:ping`));
  assert.equal(r.messages, 1);
  assert.equal(r.slot, 49);
});

test('with polling off every call sends a message, and all are still answered', async () => {
  const r = await calls(0, 20);
  assert.deepEqual(new Set(r.outcomes), new Set(['notify']));
  assert.deepEqual(r.echoes, Array.from({ length: 20 }, (_, i) => `${100 + i}:ping`));
  assert.equal(r.slot, 0);
});

test('the poller stops by itself when no call comes within its window', async () => {
  const buffers = createSyncChannelBuffers({ dataBytes: 64 });
  const host = new SyncChannelHost(buffers);
  const poller = new RequestPoller(host, () => assert.fail('no request was made'), { windowMs: 5 });
  poller.watch();
  assert.equal(new Int32Array(buffers.control)[9], 1, 'polling is announced to the worker');
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(new Int32Array(buffers.control)[9], 0, 'and withdrawn after the window');
});

test('dispose stops polling for good and hands over a request that arrived meanwhile', () => {
  const buffers = createSyncChannelBuffers({ dataBytes: 64 });
  const host = new SyncChannelHost(buffers);
  const client = new SyncChannelClient(buffers);
  const got: string[] = [];
  const poller = new RequestPoller(host, (r) => got.push(r.text), { windowMs: 60_000 });
  poller.watch();
  assert.equal(client.offer(1, 'late'), 'polled');
  poller.dispose();
  assert.deepEqual(got, ['late']);
  poller.watch();
  assert.equal(client.offer(2, 'after'), 'notify', 'a disposed poller does not watch again');
});
