// The runtime pool's scheduling with real Pyodide (worker threads, for speed: the pool is the same
// over confined children): a session holds its runtime while it runs and for a grace after, an
// idle one is stopped for a waiting session, the queue is served in order, a run waiting in
// call_tool holds no slot, spares are kept warm, and a session's own modules reach no other.
// Asserted by behaviour and by the pool's events, never by how long something took.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { primeSnapshot } from '../../../test/helpers/snapshot.ts';
import { value, withPool } from '../../../test/helpers/pool.ts';

before(() => primeSnapshot('thread'));

const LOOP = 'while True:\n    pass';
const errorType = (r: { ok: boolean; error?: { type: string } }) => (r.ok ? 'ok' : r.error!.type);

describe('runtime pool: bound while running, not for life', () => {
  test('an idle session loses its runtime after poolIdleMs, which stops; its next run says its globals were lost', () =>
    withPool({ isolation: 'thread', poolSize: 1, poolIdleMs: 30, poolGraceMs: 0, poolSpares: 0 }, async (p) => {
      assert.equal(value(await p.rt.execute('kept = 1', { session: 'S' })), null);
      await p.until((s) => s.sessions === 0 && s.workers === 0);
      const r = await p.rt.execute('kept', { session: 'S' });
      assert.equal(errorType(r), 'NameError');
      assert.match(r.notice ?? '', /session "S" ran nothing for 30 ms, so its Python runtime was stopped: its globals, imports and installed packages were lost \(poolIdleMs/);
      const again = await p.rt.execute('kept = 2\nkept', { session: 'S' });
      assert.equal(value(again), 2);
      assert.equal(again.notice, undefined, 'told once');
    }));

  test('two sessions that never end (clients gone without a word) do not starve a third: it runs once their grace is over', () =>
    withPool({ isolation: 'thread', poolSize: 2, poolGraceMs: 200 }, async (p) => {
      assert.equal(value(await p.rt.execute('mine = "a"', { session: 'gone-a' })), null);
      assert.equal(value(await p.rt.execute('mine = "b"', { session: 'gone-b' })), null);
      // poolIdleMs is 5 minutes: without reclaiming idle sessions for a waiting one, C would wait that long.
      const c = await p.rt.execute('"c ran"', { session: 'C', timeoutMs: 60_000 });
      assert.equal(value(c), 'c ran');
      const back = await p.rt.execute('mine', { session: 'gone-a' });
      const other = await p.rt.execute('mine', { session: 'gone-b' });
      // One of the two idle sessions lost its runtime to C (the one idle longest), and is told so.
      assert.equal(errorType(back), 'NameError', JSON.stringify(back).slice(0, 300));
      assert.match(back.notice ?? '', /session "gone-a" was idle while another session waited for a runtime, so its Python runtime was stopped/);
      assert.ok(value(other) === 'b' || errorType(other) === 'NameError', JSON.stringify(other).slice(0, 300));
    }));

  test('a session running again within its grace keeps its runtime and globals, though another session waits', () =>
    withPool({ isolation: 'thread', poolSize: 1, poolGraceMs: 5000 }, async (p) => {
      assert.equal(value(await p.rt.execute('x = 1', { session: 'A' })), null);
      const b = p.rt.execute('"b ran"', { session: 'B', timeoutMs: 60_000 });
      await p.until((s) => s.queued === 1);
      assert.equal(value(await p.rt.execute('x + 1', { session: 'A' })), 2, 'A kept its globals within its grace');
      assert.equal(value(await b), 'b ran', 'B got a runtime once A was idle past its grace');
      const a = await p.rt.execute('x', { session: 'A' });
      assert.equal(errorType(a), 'NameError');
      assert.match(a.notice ?? '', /was idle while another session waited/);
    }));

  test('sessions waiting for a runtime are served in order', () =>
    withPool({ isolation: 'thread', poolSize: 1, poolGraceMs: 0 }, async (p) => {
      const a = p.rt.execute(LOOP, { session: 'A', runId: 'A' });
      await p.running('A');
      const waiting = ['B', 'C', 'D'].map((session) => p.rt.execute(`"${session}"`, { session, runId: session }));
      await p.until((s) => s.queued === 3);
      p.rt.interrupt('A');
      assert.equal(errorType(await a), 'KeyboardInterrupt');
      assert.deepEqual((await Promise.all(waiting)).map(value), ['B', 'C', 'D']);
      assert.deepEqual(p.started.filter((id) => 'ABCD'.includes(id)), ['A', 'B', 'C', 'D']);
    }));

  test('past the queue limit a run is refused with RUNTIME_BUSY; the pool stays usable', () =>
    withPool({ isolation: 'thread', poolSize: 1, poolQueueLimit: 1, poolGraceMs: 0 }, async (p) => {
      assert.equal(value(await p.rt.execute('secret = "a"', { session: 'A' })), null);
      const a = p.rt.execute(LOOP, { session: 'A', runId: 'loop' });
      await p.running('loop');
      const b = p.rt.execute('secret', { session: 'B' });
      await p.until((s) => s.queued === 1);
      const c = await p.rt.execute('"c ran"', { session: 'C' });
      assert.equal(errorType(c), 'RUNTIME_BUSY');
      assert.match(!c.ok ? c.error.message : '', /all 1 runtimes of the pool are held by other sessions and 1 runs already wait for one \(poolQueueLimit 1\); the run of session "C" was refused, nothing ran/);
      assert.match(!c.ok ? (c.hint ?? '') : '', /raise poolQueueLimit or poolSize/);
      p.rt.interrupt('A');
      assert.equal(errorType(await a), 'KeyboardInterrupt');
      assert.equal(errorType(await b), 'NameError', 'B starts on an interpreter of its own');
      assert.equal(value(await p.rt.execute('1 + 1')), 2, 'runs without a session are never queued behind sessions');
      const back = await p.rt.execute('secret', { session: 'A' });
      assert.equal(errorType(back), 'NameError');
      assert.match(back.notice ?? '', /session "A" was idle while another session waited/);
    }));

  test('a waiting run gives up after its timeout, and a cancelled one leaves the queue', () =>
    withPool({ isolation: 'thread', poolSize: 1 }, async (p) => {
      const a = p.rt.execute(LOOP, { session: 'A', runId: 'loop' });
      await p.running('loop');
      const late = await p.rt.execute('1', { session: 'B', timeoutMs: 50 });
      assert.equal(errorType(late), 'RUNTIME_BUSY');
      assert.match(!late.ok ? late.error.message : '', /no runtime of the pool \(poolSize 1, all held by other sessions\) became free within 50 ms for session "B"/);
      const stop = new AbortController();
      const cancelled = p.rt.execute('1', { session: 'C', signal: stop.signal });
      await p.until((s) => s.queued === 1);
      stop.abort();
      assert.equal(errorType(await cancelled), 'KeyboardInterrupt');
      assert.equal(p.rt.getState().pool!.queued, 0);
      p.rt.interrupt('A');
      await a;
    }));
});

describe('runtime pool: call_tool chains, spares, a session\'s own modules', () => {
  test('with poolSize 1, a run waiting in call_tool holds no slot: a chain of three sessions answers, and a call back into a busy one is a CycleError', () =>
    withPool({ isolation: 'thread', poolSize: 1 }, async (p) => {
      // Tools that run code in sessions of their own, as agent-made Python tools do.
      p.rt.setToolCallHandler(async (name) => {
        const inSession = async (session: string, code: string) => {
          const r = await p.rt.execute(code, { session, timeoutMs: 30_000 });
          return r.ok ? { ok: true as const, value: r.value } : { ok: false as const, error: { code: r.error.type, message: r.error.message } };
        };
        if (name === 'outer') return inSession('T', 'call_tool("inner") + 1');
        if (name === 'inner') return inSession('U', '41');
        if (name === 'back') return inSession('T', '0');
        return { ok: false as const, error: { code: 'UNKNOWN_TOOL', message: name } };
      });
      assert.equal(value(await p.rt.execute('call_tool("outer")', { session: 'S' })), 42);
      // T waits in call_tool for U, whose tool asks T for a run: refused at once, not a wait for T.
      p.rt.setToolCallHandler(async (name) => {
        if (name === 'outer') {
          const r = await p.rt.execute('call_tool("inner")', { session: 'T' });
          return r.ok ? { ok: true as const, value: r.value } : { ok: false as const, error: { code: r.error.type, message: r.error.message } };
        }
        const r = await p.rt.execute('0', { session: 'T' });
        return r.ok ? { ok: true as const, value: r.value } : { ok: false as const, error: { code: r.error.type, message: r.error.message } };
      });
      const cycle = await p.rt.execute('call_tool("outer")', { session: 'S', timeoutMs: 20_000 });
      assert.equal(errorType(cycle), 'ToolError', JSON.stringify(cycle).slice(0, 400));
      assert.match(!cycle.ok ? cycle.error.message : '', /CycleError/);
    }));

  test('a warm spare is started once sessions are used, taken by the next new session, and stops when unused', () =>
    withPool({ isolation: 'thread', poolSize: 2, poolIdleMs: 60_000 }, async (p) => {
      assert.equal(p.rt.getState().pool!.workers, 0, 'nothing starts before a session needs it');
      assert.equal(value(await p.rt.execute('1', { session: 'A' })), 1);
      await p.until((s) => s.spares === 1);
      assert.equal(p.rt.getState().pool!.workers, 2, "A's runtime and the spare");
      const b = await p.rt.execute('import sys\n[k for k in ("x",) if k in globals()]', { session: 'B' });
      assert.deepEqual(value(b), []);
      assert.equal(p.rt.getState().pool!.workers, 3, 'B took the spare, and another is starting');
      await p.until((s) => s.spares === 1);
    }));

  test("a session's own modules reach its runtime only, follow it to a fresh runtime, and go when it ends", () =>
    withPool({ isolation: 'thread', poolSize: 2, poolIdleMs: 50, poolGraceMs: 0 }, async (p) => {
      await p.rt.setSessionModules('S', [{ path: 'own_mod.py', source: 'SECRET = 42\n' }]);
      assert.equal(value(await p.rt.execute('import own_mod\nown_mod.SECRET', { session: 'S' })), 42);
      assert.equal(errorType(await p.rt.execute('import own_mod', { session: 'O' })), 'ModuleNotFoundError');
      assert.equal(errorType(await p.rt.execute('import own_mod')), 'ModuleNotFoundError', 'nor the shared runtime');
      await p.until((s) => s.sessions === 0);
      const again = await p.rt.execute('import own_mod\nown_mod.SECRET', { session: 'S' });
      assert.equal(value(again), 42, 'installed again in the fresh runtime');
      assert.match(again.notice ?? '', /ran nothing for 50 ms/);
      await p.rt.endSession('S');
      assert.equal(errorType(await p.rt.execute('import own_mod', { session: 'S' })), 'ModuleNotFoundError');
    }));
});
