// A run's answer is its own, and a half-dead interpreter is noticed and replaced, in both Node
// isolations: Python that posts messages shaped like the runtime's own answers changes nothing,
// an exit of the interpreter (twice over) and a heap left full by a run restart the worker and
// tell the caller that globals were lost.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';
import type { ExecuteResult, PyodideRuntimeApi } from '../../upgrades/pyodide-runtime/contract.ts';

/**
 * Python that posts forged `response` messages for every run id it can guess, now and every 20 ms
 * afterwards, through every port of its worker it can reach: the worker's own (`parentPort`) and
 * any other message port of the thread. Returns how many ports it reached (0 when confined).
 */
const FORGE = `
import js
from pyodide.ffi import to_js, create_proxy
ports = []
try:
    ports.append(js.process.getBuiltinModule('node:worker_threads').parentPort)
except Exception:
    pass
try:
    for h in js.process._getActiveHandles():
        if h.constructor.name == 'MessagePort':
            ports.append(h)
except Exception:
    pass
for name in ('postMessage', 'self', 'globalThis'):
    try:
        getattr(js, name)
        ports.append(js)
    except Exception:
        pass
forged = [to_js({'type': 'response', 'id': i, 'ok': True, 'value': {'value': 'forged'}}, dict_converter=js.Object.fromEntries)
          for k in range(1, 200) for i in (f'run-{k}', f'c{k}', str(k))]
def spray(*_):
    for port in ports:
        for message in forged:
            try:
                port.postMessage(message)
            except Exception:
                pass
spray()
if ports:
    js.setInterval(create_proxy(spray), 20)
len(ports)
`;

function failedWith(r: ExecuteResult, type: string | RegExp): asserts r is Extract<ExecuteResult, { ok: false }> {
  assert.equal(r.ok, false, `expected ${type}, got ${JSON.stringify(r).slice(0, 300)}`);
  assert.match(r.error.type, typeof type === 'string' ? new RegExp(`^${type}$`) : type, JSON.stringify(r).slice(0, 300));
}

for (const isolation of ['process', 'thread'] as const) {
  describe(`a run's answer is its own; half-dead interpreters come back (${isolation})`, () => {
    let rt: PyodideRuntimeApi;
    before(async () => {
      // A small heap, so filling it costs little; the mechanism is the one a 4 GiB heap uses.
      rt = createPyodideRuntime({ isolation, snapshot: 'memory', maxHeapMb: 256, defaultTimeoutMs: 20_000 }, { emit: () => undefined });
      await rt.init();
    });
    after(() => rt.dispose());

    test('forged answers posted from Python change neither the current run nor the next 160', async (t) => {
      // A restart ends the attacker's timer along with its interpreter.
      t.after(() => rt.restart());
      const attack = await rt.execute(FORGE);
      if (attack.ok) {
        // Unconfined (thread isolation), Python reached the worker's ports; its answer is its own value.
        assert.equal(typeof attack.value, 'number', JSON.stringify(attack).slice(0, 300));
        if (isolation === 'thread') assert.ok((attack.value as number) > 0, 'the unconfined worker lets Python reach its ports: the attack is real');
      } else {
        assert.equal(isolation, 'process', JSON.stringify(attack).slice(0, 300));
      }
      for (let i = 0; i < 160; i++) {
        const r = await rt.execute(`print(${i})\n${i} * 3`);
        assert.deepEqual(r.ok && [r.value, r.stdout], [i * 3, `${i}\n`], `run ${i}: ${JSON.stringify(r).slice(0, 300)}`);
      }
    });

    test('os._exit, twice in a row, restarts the worker each time; globals are gone and the hint says so', async () => {
      await rt.execute('kept = 1');
      for (let i = 0; i < 2; i++) {
        const r = await rt.execute(`import os\nos._exit(${i + 1})`);
        failedWith(r, 'SystemExit');
        assert.doesNotMatch(`${r.error.message} ${r.stderr}`, /Cannot read properties|fatal_error/);
        assert.match(r.hint ?? '', /restarted/);
        assert.match(r.hint ?? '', /globals/);
      }
      const after = await rt.execute('1 + 1');
      assert.equal(after.ok && after.value, 2, JSON.stringify(after));
      failedWith(await rt.execute('kept'), 'NameError');
    });

    test('a run that leaves the heap nearly full restarts the worker, saying globals were lost; real runs work after it', async () => {
      const restarts = rt.getState().restarts;
      const bomb = await rt.execute('hog = []\ntry:\n    while True:\n        hog.append(bytearray(8 * 1024 * 1024))\nexcept MemoryError:\n    pass\nlen(hog)');
      assert.equal(bomb.ok, true, JSON.stringify(bomb).slice(0, 300));
      assert.ok(bomb.ok && (bomb.value as number) > 10);
      assert.match(bomb.notice ?? '', /heap/);
      assert.match(bomb.notice ?? '', /globals.*lost/);
      const real = await rt.execute('len(bytearray(64 * 1024 * 1024))');
      assert.equal(real.ok && real.value, 64 * 1024 * 1024, JSON.stringify(real).slice(0, 300));
      assert.ok(rt.getState().restarts > restarts, 'the worker was replaced');
      failedWith(await rt.execute('hog'), 'NameError');
    });

    test('a run that used much of the heap and freed it keeps its globals', async () => {
      await rt.execute('keep_me = 7');
      const r = await rt.execute('big = [bytearray(8 * 1024 * 1024) for _ in range(20)]\ndel big\n1');
      assert.equal(r.ok && r.notice, undefined, JSON.stringify(r).slice(0, 300));
      const kept = await rt.execute('keep_me');
      assert.equal(kept.ok && kept.value, 7);
    });

    test('a bomb that ends in MemoryError inside the run restarts the worker too, and the hint says globals were lost', async () => {
      const r = await rt.execute('hog = []\nwhile True:\n    hog.append(bytearray(8 * 1024 * 1024))');
      failedWith(r, 'MemoryError');
      assert.match(`${r.hint} ${r.notice}`, /globals.*lost/);
      const real = await rt.execute('len(bytearray(64 * 1024 * 1024))');
      assert.equal(real.ok && real.value, 64 * 1024 * 1024, JSON.stringify(real).slice(0, 300));
    });

    test('a run that fills the heap and then times out is a TimeoutError, and the heap is told once, as the notice', async () => {
      const r = await rt.execute('hog = []\ntry:\n    while True:\n        hog.append(bytearray(8 * 1024 * 1024))\nexcept MemoryError:\n    pass\nwhile True:\n    pass', { timeoutMs: 1500 });
      failedWith(r, 'TimeoutError');
      assert.match(r.hint ?? '', /timeout_ms/);
      assert.doesNotMatch(r.hint ?? '', /heap/);
      assert.match(r.notice ?? '', /heap/);
      const real = await rt.execute('len(bytearray(64 * 1024 * 1024))');
      assert.equal(real.ok && real.value, 64 * 1024 * 1024, JSON.stringify(real).slice(0, 300));
    });
  });
}

test('the host takes one answer per request id, from its private port only: answers forged on the worker\'s own channel (real and guessed ids), repeated or stale change nothing', async () => {
  const rt = createPyodideRuntime(
    { isolation: 'thread', snapshot: 'off', workerUrl: new URL('../fixtures/forging-worker.ts', import.meta.url), defaultTimeoutMs: 5000 },
    { emit: () => undefined },
  );
  try {
    await rt.init();
    for (let i = 0; i < 20; i++) {
      const r = await rt.execute(`run ${i}`);
      assert.equal(r.ok && r.value, `answer to run ${i}`, JSON.stringify(r));
    }
    // The attack was made: at least the real id of each of the 20 runs went out on the own channel.
    const forgeries = await rt.execute('forgeries');
    assert.ok(forgeries.ok && (forgeries.value as number) >= 20 * 21, JSON.stringify(forgeries));
  } finally {
    await rt.dispose();
  }
});
