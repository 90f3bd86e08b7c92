// The runtime pool with real Pyodide: each session its own runtime and globals, in confined child
// processes (Node's default) and in worker threads, and never an interpreter another session ran
// code in. Concurrency is asserted by behaviour (a run blocked until another session's run
// finishes), never by timing. The pool's scheduling (grace, reclaim, order) is in pool-scheduling.test.ts.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { createPyodideRuntime, RuntimeOptionError } from '../runtime.ts';
import { POOL_EVENT_MS } from './pool-events.ts';
import { primeSnapshot } from '../../../test/helpers/snapshot.ts';
import { CLEAN, LOOK, TAMPER, gate, pool, value, withPool } from '../../../test/helpers/pool.ts';

before(async () => {
  await primeSnapshot('process');
  await primeSnapshot('thread');
});

for (const isolation of ['process', 'thread'] as const) {
  describe(`runtime pool (${isolation} isolation)`, () => {
    const g = gate();
    const p = pool({ isolation, poolSize: 2 });
    before(() => p.rt.setToolCallHandler(g.handler));
    after(() => p.rt.dispose());

    test('two sessions keep separate globals, each keeps its own across runs, and runs without a session share theirs', async () => {
      const { rt } = p;
      assert.equal(value(await rt.execute('x = "a"', { session: 'A' })), null);
      assert.equal(value(await rt.execute('x = "b"', { session: 'B' })), null);
      assert.equal(value(await rt.execute('x = "shared"')), null);
      assert.equal(value(await rt.execute('x', { session: 'A' })), 'a');
      assert.equal(value(await rt.execute('x', { session: 'B' })), 'b');
      assert.equal(value(await rt.execute('x')), 'shared', 'runs without a session share one set of globals, as before');
      assert.equal(value(await rt.execute('x')), 'shared');
      await p.until((s) => s.spares === 1);
      const s = rt.getState().pool!;
      assert.deepEqual([s.size, s.workers, s.sessions, s.queued], [2, 3, 2, 0], 'two runtimes held, and a warm spare for the next session');
    });

    test('a session blocked in a run does not stop another session from completing', async () => {
      const { rt } = p;
      let aDone = false;
      const a = rt.execute('call_tool("gate")', { session: 'A' }).then((r) => ((aDone = true), r));
      await g.reached;
      const b = await rt.execute('x + "!"', { session: 'B' });
      assert.equal(value(b), 'b!');
      assert.equal(aDone, false, 'session B completed while session A was still blocked');
      assert.equal(rt.getState().pool!.busy, 1);
      g.open();
      assert.equal(value(await a), 'opened');
      assert.equal(value(await rt.execute('x', { session: 'A' })), 'a', 'the blocked session kept its globals');
    });
  });

  test(`sessions never inherit an interpreter: what session A patched, set or wrote is not there for B or C (${isolation}, one runtime at a time)`, () =>
    withPool({ isolation, poolSize: 1 }, async (p) => {
      assert.equal(value(await p.rt.execute(TAMPER, { session: 'A' })), 'tampered');
      assert.equal(value(await p.rt.execute('json.dumps({"k": 1})\nlen(leaked)', { session: 'A' })), 1, "A's patch works in A");
      await p.rt.endSession('A');
      assert.deepEqual(value(await p.rt.execute(LOOK, { session: 'B' })), CLEAN, 'B sees nothing of A');
      // A vanishes without ending: C still starts clean, on an interpreter of its own.
      assert.equal(value(await p.rt.execute(TAMPER, { session: 'A2' })), 'tampered');
      assert.deepEqual(value(await p.rt.execute(LOOK, { session: 'C' })), CLEAN, 'C sees nothing of A2');
      // A2's interpreter was stopped for C (never handed over): its patch caught nothing of C's.
      const back = await p.rt.execute('len(leaked)', { session: 'A2' });
      assert.equal(!back.ok && back.error.type, 'NameError', JSON.stringify(back).slice(0, 300));
      assert.match(back.notice ?? '', /session "A2" was idle while another session waited for a runtime, so its Python runtime was stopped/);
    }));
}

describe('runtime pool: isolation under churn, ending sessions', () => {
  test('20 sessions over 2 runtimes: each starts on an interpreter of its own and sees only its own state', () =>
    withPool({ isolation: 'thread', poolSize: 2 }, async (p) => {
      const runs = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const session = `churn-${i}`;
          const mine = [
            'import json, builtins, os',
            'seen = [hasattr(builtins, "owner"), os.environ.get("OWNER"), getattr(json, "owner", None), os.path.exists("/tmp/owner")]',
            `builtins.owner = ${i}`,
            `os.environ["OWNER"] = "${i}"`,
            `json.owner = ${i}`,
            `open("/tmp/owner", "w").write("${i}")`,
            'seen',
          ].join('\n');
          // Each waits its turn for one of the two runtimes (20 starts): the wait is bounded by the run's timeout.
          const first = await p.rt.execute(mine, { session, timeoutMs: 600_000 });
          const second = await p.rt.execute('import json, builtins, os\n[builtins.owner, os.environ["OWNER"], json.owner, open("/tmp/owner").read()]', { session });
          await p.rt.endSession(session);
          return [value(first), value(second)];
        }),
      );
      assert.deepEqual(runs, Array.from({ length: 20 }, (_, i) => [[false, null, null, false], [i, `${i}`, i, `${i}`]]));
      assert.ok(p.rt.getState().pool!.workers <= 3, 'two runtimes and a spare at most');
    }));

  test('a session ended while its run is under way: that run finishes, and the next run of the name starts on a fresh runtime', () =>
    withPool({ poolSize: 2 }, async (p, g) => {
      assert.equal(value(await p.rt.execute('kept = 1', { session: 'S' })), null);
      const blocked = p.rt.execute('kept + (call_tool("gate") == "opened")', { session: 'S' });
      await g.reached;
      await p.rt.endSession('S');
      const next = await p.rt.execute('kept', { session: 'S' });
      assert.equal(!next.ok && next.error.type, 'NameError', JSON.stringify(next).slice(0, 300));
      assert.match(next.notice ?? '', /session "S" ended before this run, so its Python runtime was stopped/);
      g.open();
      assert.equal(value(await blocked), 2, 'the run under way finished on its own globals');
    }));

  test("a session ended during its run still has its runtime's packages and state until the run ends", () =>
    withPool({ poolSize: 1 }, async (p, g) => {
      const blocked = p.rt.execute('call_tool("gate")', { session: 'S' });
      await g.reached;
      await p.rt.endSession('S');
      const listed = await Promise.race([p.rt.listPackages({ session: 'S' }), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 30_000).unref())]);
      assert.ok(Array.isArray(listed), `the packages of the runtime finishing S's run: ${JSON.stringify(listed)}`);
      assert.notEqual(p.rt.getState({ session: 'S' }).status, 'idle', "that runtime's state, not the (never started) shared one's");
      g.open();
      assert.equal(value(await blocked), 'opened');
    }));

  test('a burst of runs is told in few python:pool events, the last one the state after it', () =>
    withPool({ isolation: 'thread', poolSize: 2 }, async (p) => {
      assert.equal(value(await p.rt.execute('1', { session: 'burst' })), 1);
      const before = p.states.length;
      const runs = 40;
      await Promise.all(Array.from({ length: runs }, async (_, i) => assert.equal(value(await p.rt.execute(`${i}`, { session: 'burst' })), i)));
      await p.rt.endSession('burst');
      await new Promise((r) => setTimeout(r, 2 * POOL_EVENT_MS));
      const told = p.states.length - before;
      // Each run changes the state at least twice (taken, released): 80+ events without the limit.
      assert.ok(told >= 1 && told < runs, `${told} python:pool events for ${runs} runs`);
      assert.deepEqual(p.states.at(-1), p.rt.getState().pool, 'the last event is the state now');
      assert.deepEqual([p.states.at(-1)!.busy, p.states.at(-1)!.sessions, p.states.at(-1)!.queued], [0, 0, 0]);
    }));

  test('bad pool options and session names are refused with the value and what to pass', async () => {
    assert.throws(() => createPyodideRuntime({ poolSize: 0 }, { emit: () => undefined }), (e: unknown) => e instanceof RuntimeOptionError && /option poolSize 0: it must be a whole number of runtimes from 1 to 64/.test(e.message));
    assert.throws(() => createPyodideRuntime({ poolIdleMs: -1 }, { emit: () => undefined }), /option poolIdleMs -1: it must be 1 to 2147483647 ms/);
    assert.throws(() => createPyodideRuntime({ poolQueueLimit: 1.5 }, { emit: () => undefined }), /option poolQueueLimit 1.5/);
    assert.throws(() => createPyodideRuntime({ poolGraceMs: -1 }, { emit: () => undefined }), /option poolGraceMs -1: it must be a whole number of ms from 0 to 2147483647/);
    assert.throws(() => createPyodideRuntime({ poolSpares: 65 }, { emit: () => undefined }), /option poolSpares 65: it must be a whole number of runtimes from 0 to 64/);
    const rt = createPyodideRuntime({}, { emit: () => undefined });
    try {
      assert.equal(rt.getState().pool!.size, Math.min(64, Math.max(1, availableParallelism())), 'sized to the machine\'s cores');
      const r = await rt.execute('1', { session: 'x'.repeat(1000) });
      assert.equal(!r.ok && r.error.type, 'INVALID_SESSION');
      assert.match(!r.ok ? r.error.message : '', /invalid session "x{80}"… \(1000 characters\): names have at most 128 characters; nothing ran/);
      const t = await rt.execute('1', { session: 'ok', timeoutMs: 2 ** 31 });
      assert.equal(!t.ok && t.error.type, 'ValueError');
      assert.match(!t.ok ? t.error.message : '', /timeoutMs 2147483648 is out of range/);
      await assert.rejects(rt.setSessionModules('', []), /INVALID_SESSION|invalid session ""/);
      assert.equal(rt.getState().pool!.workers, 0, 'nothing started');
    } finally {
      await rt.dispose();
    }
    // Disposed: with a session or without, the answer says so and what to do, not "retry in a moment".
    for (const session of ['s', undefined]) {
      const r = await rt.execute('1', session === undefined ? {} : { session });
      assert.equal(!r.ok && r.error.type, 'RuntimeNotReady', `session ${session}`);
      assert.equal(!r.ok && r.hint, 'The Python runtime was disposed: create a new one.', `session ${session}`);
    }
  });
});

