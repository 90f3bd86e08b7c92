// The runtime pool with real Pyodide: each session its own runtime and globals, in confined child
// processes (Node's default) and in worker threads. Concurrency is asserted by behaviour (a run
// blocked until another session's run finishes), never by timing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import type { ArmatureEvents } from '../../../src/kernel/events.ts';
import type { PythonPoolState } from '../../../src/contracts/python-events.ts';
import { createPyodideRuntime, RuntimeOptionError, type PyodideRuntimeApi, type PyodideRuntimeOptions } from '../runtime.ts';
import { POOL_EVENT_MS } from './pool-events.ts';
import { primeSnapshot } from '../../../test/helpers/snapshot.ts';

/** A tool `gate` whose calls wait until the test opens it; `entered` resolves when Python reached it. */
function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (entered = r));
  const handler = async (name: string) => {
    if (name !== 'gate') return { ok: false as const, error: { code: 'UNKNOWN_TOOL', message: name } };
    entered();
    await opened;
    return { ok: true as const, value: 'opened' };
  };
  return { handler, open, reached };
}

/** A pool whose `python:pool` events can be awaited. */
function pool(options: PyodideRuntimeOptions) {
  const states: PythonPoolState[] = [];
  const waiters: { pred: (s: PythonPoolState) => boolean; resolve: () => void }[] = [];
  const emit = <K extends keyof ArmatureEvents>(type: K, payload: ArmatureEvents[K]) => {
    if (type !== 'python:pool') return;
    const s = payload as PythonPoolState;
    states.push(s);
    for (const w of waiters.splice(0)) (w.pred(s) ? w.resolve() : waiters.push(w));
  };
  const rt = createPyodideRuntime({ defaultTimeoutMs: 60_000, ...options }, { emit });
  const until = (pred: (s: PythonPoolState) => boolean) =>
    pred(rt.getState().pool!) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pred, resolve }));
  return { rt, states, until };
}

/** Runs `body` with a pool over `options` whose tool calls go to a fresh gate; disposes it after. */
async function withPool(options: PyodideRuntimeOptions, body: (p: ReturnType<typeof pool>, g: ReturnType<typeof gate>) => Promise<void>): Promise<void> {
  const g = gate();
  const p = pool(options);
  p.rt.setToolCallHandler(g.handler);
  try {
    await body(p, g);
  } finally {
    await p.rt.dispose();
  }
}

const value = (r: Awaited<ReturnType<PyodideRuntimeApi['execute']>>) => (r.ok ? r.value : `${r.error.type}: ${r.error.message}`);

before(() => primeSnapshot());

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
      const s = rt.getState().pool!;
      assert.deepEqual([s.size, s.workers, s.sessions, s.queued], [2, 2, 2, 0]);
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
}

describe('runtime pool: idle reclaim, queue limit, ending sessions', () => {
  test('an idle session loses its runtime, which stops; its next run says its globals were lost', () =>
    withPool({ poolSize: 1, poolIdleMs: 30 }, async (p) => {
      assert.equal(value(await p.rt.execute('kept = 1', { session: 'S' })), null);
      // Reclaimed (the session lets go), then stopped (the free runtime is gone).
      await p.until((s) => s.sessions === 0 && s.workers === 0);
      const r = await p.rt.execute('kept', { session: 'S' });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.error.type, 'NameError');
      assert.match(r.notice ?? '', /session "S" ran nothing for 30 ms, so its Python runtime went to other work: its globals, imports and installed packages were lost \(poolIdleMs/);
      const again = await p.rt.execute('kept = 2\nkept', { session: 'S' });
      assert.equal(value(again), 2);
      assert.equal(again.notice, undefined, 'told once');
    }));

  test('a session ended while its run is under way: that run finishes, and the next run of the name starts on fresh globals', () =>
    withPool({ poolSize: 2 }, async (p, g) => {
      assert.equal(value(await p.rt.execute('kept = 1', { session: 'S' })), null);
      const blocked = p.rt.execute('kept + (call_tool("gate") == "opened")', { session: 'S' });
      await g.reached;
      await p.rt.endSession('S');
      const next = await p.rt.execute('kept', { session: 'S' });
      assert.equal(!next.ok && next.error.type, 'NameError', JSON.stringify(next).slice(0, 300));
      assert.match(next.notice ?? '', /session "S" ended before this run/);
      g.open();
      assert.equal(value(await blocked), 2, 'the run under way finished on its own globals');
    }));

  test("a session ended during its run still has its runtime's packages and state until the run ends", () =>
    withPool({ poolSize: 1 }, async (p, g) => {
      const blocked = p.rt.execute('call_tool("gate")', { session: 'S' });
      await g.reached;
      await p.rt.endSession('S');
      // Not a new runtime for S (the pool's only one is the one finishing S's run): that one's list, at once.
      const listed = await Promise.race([p.rt.listPackages({ session: 'S' }), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 30_000).unref())]);
      assert.ok(Array.isArray(listed), `the packages of the runtime finishing S's run: ${JSON.stringify(listed)}`);
      assert.notEqual(p.rt.getState({ session: 'S' }).status, 'idle', "that runtime's state, not the (never started) shared one's");
      g.open();
      assert.equal(value(await blocked), 'opened');
    }));

  test('past the queue limit a run is refused with RUNTIME_BUSY; the pool stays usable', () =>
    withPool({ poolSize: 1, poolQueueLimit: 1 }, async (p, g) => {
      assert.equal(value(await p.rt.execute('secret = "a"', { session: 'A' })), null);
      const a = p.rt.execute('call_tool("gate")', { session: 'A' });
      await g.reached;
      // B waits for the one runtime, which A holds; C would be the second in the queue.
      const b = p.rt.execute('"b ran"', { session: 'B' });
      await p.until((s) => s.queued === 1);
      const c = await p.rt.execute('"c ran"', { session: 'C' });
      assert.equal(c.ok, false);
      assert.equal(!c.ok && c.error.type, 'RUNTIME_BUSY');
      assert.match(!c.ok ? c.error.message : '', /all 1 runtimes of the pool are held by other sessions and 1 runs already wait for one \(poolQueueLimit 1\); the run of session "C" was refused, nothing ran/);
      assert.match(c.hint ?? '', /raise poolQueueLimit or poolSize/);
      // A's session ends: B gets the runtime (with fresh globals) once A's run finishes.
      const ended = p.rt.endSession('A');
      g.open();
      assert.equal(value(await a), 'opened');
      await ended;
      assert.equal(value(await b), 'b ran');
      const leak = await p.rt.execute('secret', { session: 'B' });
      assert.equal(!leak.ok && leak.error.type, 'NameError', 'the next session starts with fresh globals');
      assert.equal(value(await p.rt.execute('1 + 1')), 2, 'runs without a session are never queued behind sessions');
      await p.rt.endSession('B');
      const back = await p.rt.execute('secret', { session: 'A' });
      assert.equal(!back.ok && back.error.type, 'NameError');
      assert.match(back.notice ?? '', /session "A" ended before this run, so its Python runtime went to other work: its globals/);
    }));

  test('under churn (40 sessions, 2 runtimes, a queue) each session starts on fresh globals and keeps its own', () =>
    withPool({ poolSize: 2 }, async (p) => {
      const runs = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const session = `churn-${i}`;
          // First run: nothing of an earlier session's; second: its own value still there.
          const first = await p.rt.execute(`seen = [k for k in ("mine", "other") if k in globals()]\nmine = ${i}\nseen`, { session });
          const second = await p.rt.execute('mine', { session });
          await p.rt.endSession(session);
          return [value(first), value(second)];
        }),
      );
      assert.deepEqual(runs, Array.from({ length: 40 }, (_, i) => [[], i]));
    }));

  test("a runtime handed to a waiting session whose globals cannot be cleared never runs that session's code in them", () =>
    withPool({ poolSize: 1 }, async (p, g) => {
      // A's code breaks what clearing the globals needs (the bridge names put back in them).
      assert.equal(value(await p.rt.execute('secret = "a"\nimport armature_bridge\ndel armature_bridge.ToolError', { session: 'A' })), null);
      const a = p.rt.execute('call_tool("gate")', { session: 'A' });
      await g.reached;
      const b = p.rt.execute('secret', { session: 'B' });
      await p.until((s) => s.queued === 1);
      const ended = p.rt.endSession('A');
      g.open();
      assert.equal(value(await a), 'opened');
      await ended;
      const r = await b;
      assert.equal(r.ok, false, `B's code must not run in A's globals: ${JSON.stringify(r).slice(0, 300)}`);
      assert.equal(!r.ok && r.error.type, 'RuntimeNotReady');
      assert.match(!r.ok ? r.error.message : '', /the globals left by the previous session could not be cleared \(.*ToolError.*\), so this run did not start; the runtime was restarted/);
      const again = await p.rt.execute('secret', { session: 'B' });
      assert.equal(!again.ok && again.error.type, 'NameError', 'the restarted runtime has fresh globals');
      assert.equal(value(await p.rt.execute('call_tool("gate")', { session: 'B' })), 'opened', 'and a working bridge');
    }));

  test('a waiting run gives up after its timeout, and a cancelled one leaves the queue', () =>
    withPool({ poolSize: 1 }, async (p, g) => {
      const a = p.rt.execute('call_tool("gate")', { session: 'A' });
      await g.reached;
      const late = await p.rt.execute('1', { session: 'B', timeoutMs: 50 });
      assert.equal(!late.ok && late.error.type, 'RUNTIME_BUSY');
      assert.match(!late.ok ? late.error.message : '', /no runtime of the pool \(poolSize 1, all held by other sessions\) became free within 50 ms for session "B"/);
      const stop = new AbortController();
      const cancelled = p.rt.execute('1', { session: 'C', signal: stop.signal });
      await p.until((s) => s.queued === 1);
      stop.abort();
      assert.equal(((r) => !r.ok && r.error.type)(await cancelled), 'KeyboardInterrupt');
      assert.equal(p.rt.getState().pool!.queued, 0);
      g.open();
      await a;
    }));

  test('a burst of runs is told in few python:pool events, the last one the state after it', () =>
    withPool({ poolSize: 2 }, async (p) => {
      assert.equal(value(await p.rt.execute('1', { session: 'warm' })), 1);
      await p.rt.endSession('warm');
      const before = p.states.length;
      const runs = 40;
      await Promise.all(
        Array.from({ length: runs }, async (_, i) => {
          assert.equal(value(await p.rt.execute(`${i}`, { session: `s${i}` })), i);
          await p.rt.endSession(`s${i}`);
        }),
      );
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
    const rt = createPyodideRuntime({}, { emit: () => undefined });
    try {
      assert.equal(rt.getState().pool!.size, Math.min(64, Math.max(1, availableParallelism())), 'sized to the machine\'s cores');
      const r = await rt.execute('1', { session: 'x'.repeat(1000) });
      assert.equal(!r.ok && r.error.type, 'INVALID_SESSION');
      assert.match(!r.ok ? r.error.message : '', /invalid session "x{80}"… \(1000 characters\): names have at most 128 characters; nothing ran/);
      const t = await rt.execute('1', { session: 'ok', timeoutMs: 2 ** 31 });
      assert.equal(!t.ok && t.error.type, 'ValueError');
      assert.match(!t.ok ? t.error.message : '', /timeoutMs 2147483648 is out of range/);
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
