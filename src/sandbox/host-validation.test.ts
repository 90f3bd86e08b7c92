// The host's side of a confined worker, driven by a scripted transport that sends what a real
// worker never would (forged, malformed and out-of-turn messages). The real workers are tested in
// confined-worker.test.ts (Node) and confined-worker.browser.test.ts (Chromium).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConfinedWorkerOver, type TransportStarter } from './confined-worker.ts';
import type { HostMessage } from './protocol.ts';
import type { SandboxTransport, TransportExit } from './transport.ts';

/** A transport whose "worker" is this script: it answers init, then lets the test speak for it. */
function scripted() {
  const sent: HostMessage[] = [];
  let deliver: (raw: unknown) => void = () => undefined;
  let exit: (e: TransportExit) => void = () => undefined;
  const starter: TransportStarter = async () => {
    const t: SandboxTransport = {
      post(msg) {
        sent.push(msg);
        if (msg.type === 'init') queueMicrotask(() => deliver({ type: 'ready', id: 'init', exports: ['default'] }));
      },
      onMessage: (h) => (deliver = h),
      onExit: (h) => (exit = h),
      terminate: async () => undefined,
    };
    return t;
  };
  return { starter, sent, worker: (raw: unknown) => deliver(raw), crash: (e: TransportExit) => exit(e) };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

test('a capability the worker names must exist; it is called with the arguments given', async () => {
  const s = scripted();
  const calls: unknown[][] = [];
  const logs: string[] = [];
  const w = await createConfinedWorkerOver(s.starter, { name: 'v', source: '', capabilities: { call_tool: (...a: unknown[]) => (calls.push(a), 'ok') }, onLog: (e) => logs.push(e.text) });
  s.worker({ type: 'cap', id: 'w1', name: 'fs_read', args: ['/etc/passwd'] });
  s.worker({ type: 'cap', id: 'w2', name: 'toString', args: [] });
  s.worker({ type: 'cap', id: 'w3', name: 'call_tool', args: ['read_file', { path: 'a' }] });
  await tick();
  const answers = s.sent.filter((m) => m.type === 'cap-result');
  assert.deepEqual(
    answers.map((m) => (m.ok ? [m.id, m.value] : [m.id, m.error.code, m.error.message])),
    [
      ['w1', 'UNKNOWN_CAPABILITY', 'no capability named "fs_read"; this worker has call_tool'],
      ['w2', 'UNKNOWN_CAPABILITY', 'no capability named "toString"; this worker has call_tool'],
      ['w3', 'ok'],
    ],
  );
  assert.deepEqual(calls, [['read_file', { path: 'a' }]]);
  await w.terminate();
});

test('malformed messages and answers to calls never made are ignored; a second ready changes nothing', async () => {
  const s = scripted();
  const logs: string[] = [];
  const w = await createConfinedWorkerOver(s.starter, { name: 'v', source: '', capabilities: {}, onLog: (e) => logs.push(e.text) });
  s.worker({ type: 'result', id: 'k999', ok: true, value: 'forged' });
  s.worker({ type: 'cap', id: 'w1', name: 'x'.repeat(10_000), args: [] });
  s.worker({ type: 'nonsense' });
  s.worker('not even an object');
  s.worker({ type: 'ready', id: 'init', exports: ['forged'] });
  await tick();
  assert.deepEqual(await w.describe(), { exports: ['default'] });
  assert.equal(logs.filter((l) => /ignored a message from the worker/.test(l)).length, 3);
  assert.ok(logs.every((l) => l.length < 600), 'a huge name is not echoed whole');
  const pending = w.call(['default'], [1]);
  await tick();
  const call = s.sent.find((m) => m.type === 'call')!;
  s.worker({ type: 'result', id: call.id, ok: true, value: 'real' });
  assert.equal(await pending, 'real');
  await w.terminate();
});

test('a crash fails the calls in flight with the reason, and a new worker is started', async () => {
  const s = scripted();
  const restarts: string[] = [];
  const w = await createConfinedWorkerOver(s.starter, { name: 'v', source: '', capabilities: {}, onRestart: (e) => restarts.push(e.reason) });
  const pending = w.call(['default'], []);
  await tick();
  s.crash({ reason: 'memory', detail: 'its heap reached the 64 MiB limit' });
  await assert.rejects(pending, (e: Error & { code: string }) => e.code === 'SANDBOX_CRASHED' && /ran out of memory: its heap reached the 64 MiB limit/.test(e.message));
  assert.deepEqual(restarts, ['memory']);
  assert.equal(s.sent.filter((m) => m.type === 'init').length, 2);
  await w.terminate();
});

test('only event names the worker listens to are delivered; it can stop listening; names past the limit are not kept', async () => {
  const s = scripted();
  const logs: string[] = [];
  const w = await createConfinedWorkerOver(s.starter, { name: 'v', source: '', capabilities: {}, onLog: (e) => logs.push(e.text) });
  const delivered = () => s.sent.filter((m) => m.type === 'deliver').map((m) => m.type === 'deliver' && m.name);
  w.deliver('tick', 1);
  await tick();
  assert.deepEqual(delivered(), [], 'nobody listens yet: nothing crosses');
  s.worker({ type: 'listen', id: 'listen', name: 'tick', on: true });
  s.worker({ type: 'listen', id: 'listen', name: 'x'.repeat(129), on: true });
  w.deliver('tick', 2);
  w.deliver('tock', 3);
  await tick();
  assert.deepEqual(delivered(), ['tick']);
  s.worker({ type: 'listen', id: 'listen', name: 'tick', on: false });
  w.deliver('tick', 4);
  await tick();
  assert.deepEqual(delivered(), ['tick'], 'not after it stopped listening');
  for (let i = 0; i < 300; i++) s.worker({ type: 'listen', id: 'listen', name: `e${i}`, on: true });
  assert.equal(w.listens('e255'), true);
  assert.equal(w.listens('e256'), false);
  assert.ok(logs.some((l) => /listens to more than 256 event names; "e256" is not delivered/.test(l)), logs.join('\n'));
  assert.ok(logs.some((l) => /ignored a message from the worker/.test(l)), 'a name over the limit is refused');
  await w.terminate();
});

test('each delivered event\'s handlers have a limit: answered in time, nothing happens; past it the worker is stopped for good, not restarted', async () => {
  const s = scripted();
  const stops: [string, string][] = [];
  const restarts: string[] = [];
  const w = await createConfinedWorkerOver(s.starter, {
    name: 'v',
    source: '',
    capabilities: {},
    limits: { handlerTimeoutMs: 100 },
    onStop: (e) => stops.push([e.reason, e.error.code]),
    onRestart: (e) => restarts.push(e.reason),
  });
  s.worker({ type: 'listen', id: 'listen', name: 'tick', on: true });
  const deliveries = () => s.sent.filter((m) => m.type === 'deliver');
  w.deliver('tick', 1);
  await tick();
  s.worker({ type: 'delivered', id: deliveries()[0]!.id });
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(stops, [], 'a handler that finished in time stops nothing');
  const pending = w.call(['default'], []);
  w.deliver('tick', 2);
  await assert.rejects(pending, (e: Error & { code: string }) => e.code === 'SANDBOX_HANDLER_TIMEOUT' && /its handler of "tick" did not finish within 100 ms; the worker was stopped/.test(e.message));
  assert.deepEqual(stops, [['handler-timeout', 'SANDBOX_HANDLER_TIMEOUT']]);
  assert.deepEqual(restarts, []);
  assert.equal(s.sent.filter((m) => m.type === 'init').length, 1, 'no new worker');
  await assert.rejects(w.call(['default'], []), (e: Error & { code: string }) => e.code === 'SANDBOX_HANDLER_TIMEOUT', 'later calls say why');
  w.deliver('tick', 3);
  assert.equal(deliveries().length, 2, 'nothing is delivered to a stopped worker');
  await w.terminate();
});

test('a call made with onTimeout "stop" stops the worker at its timeout instead of restarting it', async () => {
  const s = scripted();
  const stops: string[] = [];
  const w = await createConfinedWorkerOver(s.starter, { name: 'v', source: '', capabilities: {}, onStop: (e) => stops.push(e.reason), onRestart: () => stops.push('restart') });
  await assert.rejects(w.call(['init'], [], { timeoutMs: 50, onTimeout: 'stop' }), (e: Error & { code: string }) => e.code === 'SANDBOX_TIMEOUT' && /init did not finish within 50 ms/.test(e.message));
  assert.deepEqual(stops, ['timeout']);
  await assert.rejects(w.call(['default'], []), /init did not finish within 50 ms; the worker was stopped/);
  assert.equal(s.sent.filter((m) => m.type === 'init').length, 1);
});

test('starting the worker and running the module\'s top level have limits of their own: the machine\'s start, then the agent\'s code', async () => {
  /** A transport that says `loading` (or not) and then never `ready`. */
  const silent = (loading: boolean): TransportStarter => async () => {
    let deliver: (raw: unknown) => void = () => undefined;
    return {
      post: (msg) => void (msg.type === 'init' && loading && queueMicrotask(() => deliver({ type: 'loading', id: 'init' }))),
      onMessage: (h) => (deliver = h),
      onExit: () => undefined,
      terminate: async () => undefined,
    };
  };
  const limits = { startTimeoutMs: 80, callTimeoutMs: 60 };
  await assert.rejects(createConfinedWorkerOver(silent(false), { name: 'v', source: '', capabilities: {}, limits }), (e: Error & { code: string }) => e.code === 'SANDBOX_START_TIMEOUT' && /did not start within 80 ms/.test(e.message));
  await assert.rejects(createConfinedWorkerOver(silent(true), { name: 'v', source: '', capabilities: {}, limits }), (e: Error & { code: string }) => e.code === 'SANDBOX_TIMEOUT' && /the module did not finish loading within 60 ms/.test(e.message));
});
