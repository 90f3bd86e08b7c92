// The real runtime when things go wrong: a loop inside C, oversized values, a dying worker, the
// tool pipe's slow and cut-short calls, a caller's cancellation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ArmatureEvents } from '../../src/kernel/events.ts';
import { createPyodideRuntime } from './runtime.ts';

type Ev = { type: keyof ArmatureEvents; payload: any };

test('a loop inside C is ended by replacing the worker; the runtime is usable after', async () => {
  const rt = createPyodideRuntime({ interruptGraceMs: 500 }, { emit: () => undefined });
  try {
    await rt.execute('kept = 1');
    const r = await rt.execute('sum(range(10**13))', { timeoutMs: 200 });
    assert.equal(!r.ok && r.error.type, 'TimeoutError');
    assert.match(!r.ok ? r.hint ?? '' : '', /runtime was restarted: globals, imports and installed packages were lost/);
    const after = await rt.execute('1 + 1');
    assert.equal(after.ok && after.value, 2);
    assert.equal(rt.getState().restarts, 1);
    assert.equal(rt.getState().fromSnapshot, true, 'the replacement restores the memory snapshot');
    const lost = await rt.execute('kept');
    assert.equal(!lost.ok && lost.error.type, 'NameError');
  } finally {
    await rt.dispose();
  }
});

test('what Python returns is bounded: values, exception texts, call_tool arguments and answers', async () => {
  const rt = createPyodideRuntime(
    {
      maxResultBytes: 1 << 20,
      maxToolArgBytes: 1 << 20,
      maxToolAnswerBytes: 1 << 20,
      onToolCall: async (name, args) => ({ ok: true, value: name === 'big' ? 'z'.repeat(5 << 20) : name === 'rows' ? Array.from({ length: 300_000 }, (_, i) => ({ i, s: 'abcdef' })) : args }),
    },
    { emit: () => undefined },
  );
  try {
    const cases: [string, string, RegExp][] = [
      ['"x" * (200 * 1024 * 1024)', 'ResultTooLarge', /a str of 209715200 characters; the limit is 1048576 bytes/],
      ['b"y" * (3 << 20)', 'ResultTooLarge', /a bytes of 3145728 bytes/],
      ['[{"a": "x" * 100} for _ in range(100000)]', 'ResultTooLarge', /at least \d+ bytes; the limit is 1048576/],
      ['call_tool("echo", {"s": "q" * (2 << 20)})', 'ToolError', /ARGUMENTS_TOO_LARGE.*the limit is 1048576/],
      ['call_tool("big")', 'ToolError', /ANSWER_TOO_LARGE.*more than 1048576 bytes/],
      ['call_tool("rows")', 'ToolError', /ANSWER_TOO_LARGE/],
    ];
    for (const [code, type, message] of cases) {
      const r = await rt.execute(code);
      assert.equal(!r.ok && r.error.type, type, code);
      assert.match(!r.ok ? r.error.message : '', message, code);
    }
    const hint = await rt.execute('"x" * (2 << 20)');
    assert.match(!hint.ok ? hint.hint ?? '' : '', /maxResultBytes/);
    const longError = await rt.execute('raise ValueError("e" * 10_000_000)');
    assert.ok(!longError.ok && longError.error.message.length < 70_000 && longError.error.traceback.length < 70_000, 'exception texts are cut');
    const ok = await rt.execute('call_tool("echo", {"s": "fits"})["s"]');
    assert.equal(ok.ok && ok.value, 'fits');
    assert.equal(rt.getState().restarts, 0, 'no limit needed a restart');
  } finally {
    await rt.dispose();
  }
});

test('a worker that dies, between runs or during one, never crashes the host and comes back (thread isolation)', async () => {
  const events: Ev[] = [];
  // Killing the worker from Python needs the unconfined thread isolation (js.eval, js.process);
  // the confined child runs this same runtime inside it.
  const rt = createPyodideRuntime({ isolation: 'thread' }, { emit: (type, payload) => events.push({ type, payload }) });
  const waitFor = async (pred: () => boolean, what: string) => {
    for (const end = performance.now() + 10_000; !pred(); await new Promise((r) => setTimeout(r, 20))) {
      if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    }
  };
  try {
    await rt.init();
    // An uncaught error in the worker's JS, outside any request (the run has answered by then).
    const r0 = await rt.execute('import js\njs.setTimeout(js.eval("() => { throw new Error(\'boom in worker\') }"), 100)\n"scheduled"');
    assert.equal(r0.ok && r0.value, 'scheduled');
    await waitFor(() => rt.getState().status === 'error', 'status error');
    assert.match(rt.getState().lastError!.message, /boom in worker|exited/);
    const r = await rt.execute('2 * 21');
    assert.equal(r.ok && r.value, 42);
    assert.equal(rt.getState().restarts, 1);
    // The worker dies in the middle of a run: the run fails once (it is not run again) and the runtime restarts.
    const crash = await rt.execute('import js\nprint("before")\njs.process.exit(3)', { runId: 'crash' });
    assert.equal(!crash.ok && crash.error.type, 'WorkerCrashed', JSON.stringify(crash));
    assert.match(!crash.ok ? crash.hint ?? '' : '', /restarted: globals, imports and installed packages were lost/);
    assert.equal(events.filter((e) => e.type === 'python:started' && e.payload.runId === 'crash').length, 1);
    const after = await rt.execute('"back"');
    assert.equal(after.ok && after.value, 'back');
    assert.equal(rt.getState().restarts, 2);
    const states = events.filter((e) => e.type === 'python:state').map((e) => e.payload.status);
    assert.deepEqual(states.slice(-5), ['error', 'restarting', 'ready', 'busy', 'ready'], states.join(','));
  } finally {
    await rt.dispose();
  }
});

test('process isolation: call_tool over the tool pipe — slow answers wake the worker, a timed-out call is cut short, later answers match', async () => {
  let release: (() => void) | undefined;
  const rt = createPyodideRuntime(
    {
      onToolCall: async (name, args) => {
        if (name === 'slow') await new Promise((r) => setTimeout(r, 150));
        if (name === 'hang') await new Promise<void>((r) => (release = r));
        return { ok: true, value: { name, args } };
      },
    },
    { emit: () => undefined },
  );
  try {
    // Past the worker's spinning: it sleeps and is woken when the answer is there.
    const slow = await rt.execute('[call_tool("slow", {"i": i})["args"]["i"] for i in range(3)]');
    assert.deepEqual(slow.ok && slow.value, [0, 1, 2]);
    // A call the tool never answers: the timeout ends it, and the run stops with a KeyboardInterrupt inside.
    const hung = await rt.execute('call_tool("hang")', { timeoutMs: 300 });
    assert.equal(!hung.ok && hung.error.type, 'TimeoutError');
    assert.match(!hung.ok ? hung.hint ?? '' : '', /interrupted after 300 ms; globals survived/, 'the blocked call ended, no restart was needed');
    release?.();
    // The late answer to the cut call is dropped; the next calls get their own answers.
    const after = await rt.execute('[call_tool("echo", {"n": n})["args"]["n"] for n in range(50)]');
    assert.deepEqual(after.ok && after.value, Array.from({ length: 50 }, (_, n) => n));
    assert.equal(rt.getState().restarts, 0);
  } finally {
    await rt.dispose();
  }
});

for (const isolation of ['process', 'thread'] as const) {
  test(`a caller's signal interrupts its run, and one aborted before its turn never starts (${isolation})`, async () => {
    const rt = createPyodideRuntime({ isolation }, { emit: () => undefined });
    try {
      await rt.execute('kept = 1');
      const cancel = new AbortController();
      const loop = rt.execute('while True: pass', { signal: cancel.signal, timeoutMs: 60_000 });
      setTimeout(() => cancel.abort(), 300);
      const r = await loop;
      assert.equal(!r.ok && r.error.type, 'KeyboardInterrupt', JSON.stringify(r));
      const early = new AbortController();
      early.abort();
      const never = await rt.execute('kept = 2', { signal: early.signal });
      assert.match(!never.ok ? never.error.message : '', /cancelled before it started/);
      const next = await rt.execute('kept');
      assert.equal(next.ok && next.value, 1, 'globals survived; the cancelled run did not run');
    } finally {
      await rt.dispose();
    }
  });
}

for (const isolation of ['process', 'thread'] as const) {
  test(`modules set twice while Python starts: the later set is what the interpreter has (${isolation})`, async () => {
    const rt = createPyodideRuntime({ isolation }, { emit: () => undefined });
    try {
      const started = rt.init();
      // Both calls wait for the start; the older one must not land after the newer one.
      const first = rt.setPythonModules([{ path: 'mods_race/a.py', source: 'V = 1\n' }]);
      const second = rt.setPythonModules([{ path: 'mods_race/a.py', source: 'V = 2\n' }, { path: 'mods_race/b.py', source: 'W = 3\n' }]);
      await Promise.all([started, first, second]);
      const r = await rt.execute('from mods_race import a, b\n[a.V, b.W]');
      assert.deepEqual(r.ok && r.value, [2, 3], JSON.stringify(r).slice(0, 300));
    } finally {
      await rt.dispose();
    }
  });
}
