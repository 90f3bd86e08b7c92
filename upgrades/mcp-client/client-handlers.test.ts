// A call's idle clock: it runs out after its period of silence, is started again by progress, and
// does not run out while the server waits on this client (a person answering, a model sampling) —
// after which the call gets a whole period again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { fileUri, ServerWaits } from './client-handlers.ts';

test('silence ends a call; a wait of its server on this client does not, and the call gets a whole period after it', async () => {
  const waits = new ServerWaits();
  const silent = waits.clock('a', 20);
  await once(silent.signal, 'abort');
  silent.stop();

  let endWait!: () => void;
  const waiting = waits.during('a', () => new Promise<void>((r) => (endWait = r)));
  const call = waits.clock('a', 20);
  const other = waits.clock('b', 20);
  await once(other.signal, 'abort');
  // Several periods of the other server's clock have passed: this one, waited on, still runs.
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(call.signal.aborted, false, 'not idle while its server waits on the client');
  const ended = performance.now();
  endWait();
  await waiting;
  await once(call.signal, 'abort');
  assert.ok(performance.now() - ended >= 19, 'a whole period after the wait ended');
  call.stop();
  other.stop();
});

test('roots are file URIs with each segment encoded', () => {
  assert.equal(fileUri('/data/my work/ws'), 'file:///data/my%20work/ws');
});
