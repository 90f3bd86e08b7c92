// The real runtime: Pyodide in a worker_threads worker.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ArmatureEvents } from '../../src/kernel/events.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from './runtime.ts';
import { defaultIndexURL } from './host/worker-handle.ts';
import { buildWheel, lockWith } from '../../test/helpers/wheel.ts';
import { VALUE_CASES } from './value-cases.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { primeSnapshot } from '../../test/helpers/snapshot.ts';

type Ev = { type: keyof ArmatureEvents; payload: any };

function recorder() {
  const events: Ev[] = [];
  return { events, emit: (type: keyof ArmatureEvents, payload: unknown) => events.push({ type, payload }) };
}

describe('runtime (shared, restored from the start-up snapshot)', () => {
  let rt: PyodideRuntimeApi;
  const rec = recorder();
  before(async () => {
    // Every test below runs against an interpreter restored from a snapshot, as most starts are.
    await primeSnapshot();
    rt = createPyodideRuntime({ defaultTimeoutMs: 20_000 }, { emit: rec.emit as never });
    await rt.init();
  });
  after(() => rt.dispose());

  test('init reports progress through every stage in order, then ready', async () => {
    const progress = rec.events.filter((e) => e.type === 'python:progress').map((e) => e.payload);
    const stages = [...new Set(progress.map((p) => p.stage))];
    assert.deepEqual(stages, ['fetch', 'compile', 'stdlib', 'ready']);
    const percents = progress.map((p) => p.percent);
    assert.deepEqual(percents, [...percents].sort((a, b) => a - b));
    assert.equal(percents.at(-1), 100);
    const s = rt.getState();
    assert.equal(s.status, 'ready');
    assert.equal(s.pyodideVersion, '0.29.5');
    assert.match(s.pythonVersion!, /^3\.13\./);
    assert.equal(s.transport, 'shared-memory');
    assert.equal(s.fromSnapshot, true, 'a worker after the first in a process restores its snapshot');
    assert.ok(progress.some((p) => p.message === 'restoring Python from the start-up snapshot'));
    assert.equal(rt.isReady(), true);
    // The state starts with no packages without asking Python; that must be the truth.
    assert.deepEqual(s.packages, []);
    assert.deepEqual(await rt.listPackages(), []);
  });

  test('execute returns the last value with stdout/stderr; globals persist; reset clears them', async () => {
    const r = await rt.execute('import sys\nx = 20\nprint("out")\nprint("err", file=sys.stderr)\nx * 2 + 2');
    assert.equal(r.ok, true);
    assert.deepEqual(r.ok && [r.value, r.stdout, r.stderr], [42, 'out\n', 'err\n']);
    assert.equal((await rt.execute('x')).ok && true, true);
    assert.deepEqual((await rt.execute('{"a": (1, 2), "b": None, "c": [1.5, "é"]}')).ok, true);
    const v = await rt.execute('{"a": (1, 2), "b": None, "c": [1.5, "é"], "big": 2**70, "bytes": b"hi", "s": {3}}');
    assert.deepEqual(v.ok && v.value, { a: [1, 2], b: null, c: [1.5, 'é'], big: '1180591620717411303424', bytes: { $bytes: 'aGk=' }, s: [3] });
    const tail = await rt.execute('import sys\nsys.stdout.write("no newline")\nsys.stderr.write("err tail")\nNone');
    assert.deepEqual(tail.ok && [tail.value, tail.stdout, tail.stderr], [null, 'no newline', 'err tail'], 'unterminated output belongs to its run');
    const obj = await rt.execute('class Foo: pass\nFoo()');
    assert.match(String(obj.ok && obj.value), /^\[PyProxy Foo: <__main__\.Foo object at/);
    await rt.reset();
    const gone = await rt.execute('x');
    assert.equal(!gone.ok && gone.error.type, 'NameError');
    assert.ok((await rt.execute('call_tool')).ok, 'bridge names survive reset');
  });

  test('the direct compile path and Pyodide\'s CodeRunner give the same results, values and errors', async () => {
    const cases: [string, unknown][] = [
      ['x = 1; x', 1],
      ['x;', null],
      ['print("quiet");', null],
      ['1  # a ; in a comment', 1],
      ['"a;b"', 'a;b'],
      ['s = "é✓"; len(s)', 2],
      ['(1 +\n 2)', 3],
      ['y = 5', null],
      ['if True:\n    7', null],
      ['import asyncio\nawait asyncio.sleep(0)\n8', 8],
      ['import asyncio\nawait asyncio.sleep(0, result=9)', 9],
      ['from __future__ import annotations\ndef f(a: Undefined) -> int:\n    return 10\nf(0)', 10],
      ['[i * i for i in range(4)]', [0, 1, 4, 9]],
      ['def g():\n    return 1/0\ng()', 'ZeroDivisionError'],
      ['x = (1,\ny = 2', 'SyntaxError'],
      ['return 5', 'SyntaxError'],
      ['raise KeyError("k")', 'KeyError'],
      // Indented as a whole (models send code cut from a longer message): dedented, as eval_code does.
      ['    x = 2\n    x * 3', 6],
      ['\n        if True:\n            y = 4\n        y', 4],
      ['    import asyncio\n    await asyncio.sleep(0)\n    8', 8],
      ['    from __future__ import annotations\n    z = 5\n    z;', null],
      ['    w = 1\n    raise ValueError("boom")', 'ValueError'],
      ['    v = 1\n  u = 2', 'IndentationError'],
    ];
    const slow = createPyodideRuntime({ fastExecute: false }, { emit: () => undefined });
    try {
      for (const [code, expected] of cases) {
        const [fast, viaRunner] = [await rt.execute(code), await slow.execute(code)];
        const outcome = (r: typeof fast) => (r.ok ? r.value : r.error.type);
        assert.deepEqual(outcome(fast), expected, `fast path: ${code}`);
        assert.deepEqual(outcome(viaRunner), expected, `CodeRunner: ${code}`);
        if (!fast.ok && !viaRunner.ok) {
          const frames = (tb: string) => tb.replace(/<python:\d+>/g, '<python>');
          assert.equal(frames(fast.error.traceback), frames(viaRunner.error.traceback), code);
          assert.deepEqual([fast.error.line, fast.error.column], [viaRunner.error.line, viaRunner.error.column], code);
        }
      }
    } finally {
      await slow.dispose();
    }
  });

  test('regenerated and new modules import at once; only Armature\'s own import finders are reset', async () => {
    // importlib.invalidate_caches() would import importlib.metadata and reset every finder.
    await rt.execute('import importlib\n_resets = []\n_original = importlib.invalidate_caches\nimportlib.invalidate_caches = lambda: _resets.append(1)');
    try {
      await rt.setPythonModules([{ path: 'tools/__init__.py', source: '' }, { path: 'tools/alpha.py', source: 'A = 1\n' }]);
      const first = await rt.execute('from tools.alpha import A\nA');
      assert.equal(first.ok && first.value, 1);
      await rt.setPythonModules([
        { path: 'tools/__init__.py', source: '' },
        { path: 'tools/alpha.py', source: 'A = 2\n' },
        { path: 'tools/beta.py', source: 'B = 3\n' },
      ]);
      const both = await rt.execute('from tools.alpha import A\nfrom tools.beta import B\n(A, B, len(_resets))');
      assert.deepEqual(both.ok && both.value, [2, 3, 0]);
    } finally {
      await rt.execute('importlib.invalidate_caches = _original');
    }
  });

  test('every value conversion rule holds end to end (Python -> worker -> host)', async () => {
    for (const c of VALUE_CASES) {
      const r = await rt.execute(c.code);
      assert.equal(r.ok, true, `${c.rule}: ${JSON.stringify(r)}`);
      const value = r.ok ? r.value : undefined;
      if (c.pattern) assert.match(String(value), c.pattern, c.rule);
      else assert.deepEqual(value, c.expected, c.rule);
    }
  });

  test('errors: user frames only, with hints for SyntaxError and ModuleNotFoundError', async () => {
    const z = await rt.execute('def f():\n    return 1/0\nf()');
    assert.equal(!z.ok && z.error.type, 'ZeroDivisionError');
    const tb = !z.ok ? z.error.traceback : '';
    assert.match(tb, /File "<python:\d+>", line 3, in <module>\n    f\(\)/);
    assert.match(tb, /File "<python:\d+>", line 2, in f\n    return 1\/0/);
    assert.doesNotMatch(tb, /_pyodide|armature_runner|pyodide\.asm/);
    const s = await rt.execute('x = (1,\ny = 2');
    assert.equal(!s.ok && s.error.type, 'SyntaxError');
    assert.match(!s.ok ? s.hint ?? '' : '', /^SyntaxError at line 1, column 5: /);
    const m = await rt.execute('import definitely_not_here');
    assert.match(!m.ok ? m.hint ?? '' : '', /"definitely_not_here" is not installed: install it with install_python_package/);
  });

  test('an interrupt that lands in Armature\'s own code shows user frames only', async () => {
    // str() of the exception raises KeyboardInterrupt while the runner describes it, as an
    // interrupt arriving during the description would.
    const r = await rt.execute('class Boom:\n    def __str__(self):\n        raise KeyboardInterrupt\nraise ValueError(Boom())');
    assert.equal(!r.ok && r.error.type, 'KeyboardInterrupt');
    const text = !r.ok ? `${r.error.message}\n${r.error.traceback}` : '';
    assert.match(text, /File "<python:\d+>", line 3, in __str__/);
    assert.doesNotMatch(text, /armature_runner|armature_bridge|_pyodide|pyodide\.asm/);
    assert.equal((await rt.execute('1 + 1')).ok, true);
  });

  test('concurrent runs queue in order and every output chunk belongs to its own run', async () => {
    const before = rec.events.length;
    const code = (tag: string) => `for i in range(2000):\n    print("${tag}", i)\n"${tag}"`;
    const results = await Promise.all(['A', 'B', 'C'].map((t) => rt.execute(code(t), { runId: `run-${t}` })));
    assert.deepEqual(results.map((r) => r.ok && r.value), ['A', 'B', 'C']);
    const events = rec.events.slice(before);
    const order = events.filter((e) => e.type === 'python:started').map((e) => e.payload.runId);
    assert.deepEqual(order, ['run-A', 'run-B', 'run-C']);
    for (const tag of ['A', 'B', 'C']) {
      const text = events.filter((e) => e.type === 'python:stdout' && e.payload.runId === `run-${tag}`).map((e) => e.payload.chunk).join('');
      const lines = text.trimEnd().split('\n');
      assert.equal(lines.length, 2000);
      assert.ok(lines.every((l, i) => l === `${tag} ${i}`), `run ${tag} has foreign or out-of-order lines`);
    }
    // No run's events start before the previous run finished.
    const seq = events.filter((e) => ['python:started', 'python:finished'].includes(e.type)).map((e) => `${e.type.split(':')[1]}:${e.payload.runId}`);
    assert.deepEqual(seq, ['started:run-A', 'finished:run-A', 'started:run-B', 'finished:run-B', 'started:run-C', 'finished:run-C']);
  });

  test('output printed before a sleep streams while the run is still waiting', async () => {
    const seen: Record<string, number> = {};
    const start = rec.events.length;
    const pending = rt.execute('import time\nprint("tick", end="")\ntime.sleep(1.5)\n"done"', { runId: 'sleepy' });
    // Poll the recorded events: the chunk must arrive long before the run ends, not with its result.
    const poll = setInterval(() => {
      if (seen.tick === undefined && rec.events.slice(start).some((e) => e.type === 'python:stdout' && e.payload.chunk === 'tick')) seen.tick = performance.now();
    }, 10);
    const r = await pending;
    clearInterval(poll);
    seen.done = performance.now();
    assert.equal(r.ok && r.value, 'done');
    assert.ok(seen.tick !== undefined && seen.done - seen.tick > 750, `tick arrived ${seen.done - (seen.tick ?? seen.done)} ms before the end`);
  });

  test('output printed just before a long silent computation streams while Python computes', async () => {
    const start = rec.events.length;
    let seenAt: number | undefined;
    // Two quick prints: the second lands within the batching interval of the first, then
    // Python computes for 1.5 s without printing or sleeping (no worker timer can run).
    const pending = rt.execute('import time\nprint("one")\nprint("two")\nt = time.perf_counter()\nwhile time.perf_counter() - t < 1.5:\n    pass\n"done"', { runId: 'busy' });
    const poll = setInterval(() => {
      const text = rec.events.slice(start).filter((e) => e.type === 'python:stdout' && e.payload.runId === 'busy').map((e) => e.payload.chunk).join('');
      if (seenAt === undefined && text === 'one\ntwo\n') seenAt = performance.now();
    }, 10);
    const r = await pending;
    clearInterval(poll);
    assert.equal(r.ok && r.value, 'done');
    assert.equal(r.stdout, 'one\ntwo\n');
    assert.ok(seenAt !== undefined && performance.now() - seenAt > 750, `both lines arrived ${performance.now() - (seenAt ?? performance.now())} ms before the end`);
  });

  test('100,000 printed lines arrive in batches, and the result keeps a bounded tail', async () => {
    const before = rec.events.length;
    const r = await rt.execute('for i in range(100000):\n    print(i)', { runId: 'flood' });
    assert.equal(r.ok, true);
    const chunks = rec.events.slice(before).filter((e) => e.type === 'python:stdout' && e.payload.runId === 'flood');
    assert.ok(chunks.length < 500, `expected batched output, got ${chunks.length} events`);
    const all = chunks.map((e) => e.payload.chunk).join('');
    assert.equal(all.split('\n').length - 1, 100000);
    assert.ok(all.endsWith('99999\n'));
  });

  test('a pure-Python infinite loop times out by interrupt and keeps globals', async () => {
    await rt.execute('kept = "still here"');
    const r = await rt.execute('while True:\n    pass', { timeoutMs: 300 });
    assert.equal(!r.ok && r.error.type, 'TimeoutError');
    assert.match(!r.ok ? r.hint ?? '' : '', /globals survived/);
    const k = await rt.execute('kept');
    assert.equal(k.ok && k.value, 'still here');
    assert.equal(rt.getState().restarts, 0);
  });

  test('interrupt() stops the running code with KeyboardInterrupt', async () => {
    const pending = rt.execute('import time\nwhile True:\n    sum(range(1000))');
    await new Promise((r) => setTimeout(r, 200));
    rt.interrupt();
    const r = await pending;
    assert.equal(!r.ok && r.error.type, 'KeyboardInterrupt');
  });

  test('memory bombs end as clean errors and the runtime stays usable', async () => {
    // On 32-bit WebAssembly this size does not even fit an index: CPython refuses it up front.
    const s = await rt.execute("'x' * 10**10");
    assert.ok(!s.ok && ['MemoryError', 'OverflowError'].includes(s.error.type), JSON.stringify(!s.ok && s.error));
    assert.match(!s.ok ? s.hint ?? '' : '', /32-bit WebAssembly|ran out of memory/);
    const grow = await rt.execute('hog = []\nwhile True:\n    hog.append(bytearray(50 * 1024 * 1024))', { timeoutMs: 60_000 });
    assert.equal(!grow.ok && grow.error.type, 'MemoryError');
    assert.match(!grow.ok ? grow.hint ?? '' : '', /ran out of memory/);
    // The bomb is still in globals, filling the heap: the worker was replaced after the run.
    assert.match(grow.notice ?? '', /heap nearly full .*restarted.*globals/);
    const after = await rt.execute('len(bytearray(100 * 1024 * 1024))');
    assert.equal(after.ok && after.value, 100 * 1024 * 1024, JSON.stringify(after).slice(0, 300));
  });

  test('a run timeout a timer cannot hold is refused, naming the range; the longest one it can is a long time', async () => {
    const r = await rt.execute('refused_run = 1', { timeoutMs: 2 ** 31 });
    assert.equal(!r.ok && r.error.type, 'ValueError', JSON.stringify(r));
    assert.match(!r.ok ? r.error.message : '', /timeoutMs 2147483648 is out of range: it must be 1 to 2147483647 ms/);
    const longest = await rt.execute('import time\ntime.sleep(0.05)\n6 * 7', { timeoutMs: 2 ** 31 - 1 });
    assert.equal(longest.ok && longest.value, 42, JSON.stringify(longest));
    const ran = await rt.execute('"refused_run" in globals()');
    assert.equal(ran.ok && ran.value, false, 'the refused run did not run');
  });

  test('os._exit ends the interpreter: a SystemExit crash, the worker is replaced, later runs work', async () => {
    await rt.execute('kept = 1');
    const before = rt.getState().restarts;
    const r = await rt.execute('import os\nos._exit(1)');
    assert.equal(!r.ok && r.error.type, 'SystemExit');
    assert.match(!r.ok ? r.error.message : '', /interpreter exited with status 1/);
    assert.match(!r.ok ? r.hint ?? '' : '', /restarted/);
    const after = await rt.execute('print("alive")\n1 + 1');
    assert.deepEqual(after.ok && [after.value, after.stdout], [2, 'alive\n']);
    assert.equal(rt.getState().restarts, before + 1);
    const gone = await rt.execute('kept');
    assert.equal(!gone.ok && gone.error.type, 'NameError', 'a new interpreter');
  });

  test('installs offline: a wheel by path, by bytes, by name through a local package index; lists versions', async () => {
    const dir = tempDir('wheels');
    const byPath = await buildWheel('armature_fixture_path', '1.2.3', 'VALUE = "from path"\n');
    writeFileSync(join(dir, byPath.fileName), byPath.bytes);
    const ok = await rt.installPackage(join(dir, byPath.fileName));
    assert.equal(ok.ok, true, JSON.stringify(ok));
    const byUrl = await buildWheel('armature_fixture_url', '0.0.1', 'VALUE = "from a file URL"\n');
    writeFileSync(join(dir, byUrl.fileName), byUrl.bytes);
    const viaUrl = await rt.installPackage(pathToFileURL(join(dir, byUrl.fileName)).href);
    assert.equal(viaUrl.ok, true, JSON.stringify(viaUrl));
    assert.equal((await rt.execute('import armature_fixture_url\narmature_fixture_url.VALUE')).ok, true);
    const bytes = await buildWheel('armature_fixture_bytes', '0.1.0', 'def hello():\n    return "hi from bytes"\n');
    assert.equal((await rt.installPackage({ fileName: bytes.fileName, bytes: bytes.bytes })).ok, true);
    const r = await rt.execute('import armature_fixture_path, armature_fixture_bytes\n(armature_fixture_path.VALUE, armature_fixture_bytes.hello())');
    assert.deepEqual(r.ok && r.value, ['from path', 'hi from bytes']);
    const pkgs = await rt.listPackages();
    assert.ok(pkgs.some((p) => p.name === 'armature_fixture_path' && p.version === '1.2.3'), JSON.stringify(pkgs));
    assert.ok(pkgs.some((p) => p.name === 'armature_fixture_bytes' && p.version === '0.1.0'));
    assert.ok(rec.events.some((e) => e.type === 'python:package-installed' && e.payload.name === 'armature_fixture_path'));
    const missing = await rt.installPackage(join(dir, 'nope-1.0-py3-none-any.whl'));
    assert.equal(missing.ok, false);
  });

  test('a name the index lacks gives a clear error offline (micropip cannot load)', async () => {
    const r = await rt.installPackage('surely-not-a-real-package-name');
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error.message : '', /surely-not-a-real-package-name is not in the Pyodide package index, and micropip could not be loaded/);
  });

  test('an indexed package whose download fails reports the real error instead of an empty success', async () => {
    const r = await rt.installPackage('micropip');
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error.message : '', /could not install micropip/);
  });
});

for (const isolation of ['process', 'thread'] as const) {
  test(`installing by name from the CDN index creates no folder named after the URL in the working directory (${isolation})`, async () => {
    const cwd = tempDir('install-cwd');
    const cacheDir = join(tempDir('install-cache'), 'pyodide-packages');
    const before = process.cwd();
    const rt = createPyodideRuntime({ packageCacheDir: cacheDir, isolation }, { emit: () => undefined });
    // Started from here: a worker started elsewhere would look for tsx there (--import tsx).
    await rt.init();
    process.chdir(cwd);
    try {
      // Offline the download fails; what matters is what the attempt leaves on disk.
      const r = await rt.installPackage('micropip');
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.error.message : '', /could not install micropip/);
      assert.deepEqual(readdirSync(cwd), [], 'nothing (no https:/cdn.jsdelivr.net/... tree) in the working directory');
      // A confined child keeps its downloads apart, in the one folder it may write.
      const kept = isolation === 'process' ? `${cacheDir}-confined` : cacheDir;
      assert.ok(existsSync(kept), `downloads are kept in ${kept}`);
      if (isolation === 'process') assert.ok(!existsSync(cacheDir), 'the unconfined runtime\'s folder is left alone');
    } finally {
      process.chdir(before);
      await rt.dispose();
    }
  });
}

test('install by name through a configured local package index (mirror)', async () => {
  const mirror = tempDir('index');
  const wheel = await buildWheel('armature_fixture_indexed', '2.0.0', 'ANSWER = 42\n');
  writeFileSync(join(mirror, wheel.fileName), wheel.bytes);
  const base = JSON.parse(readFileSync(join(await defaultIndexURL(), 'pyodide-lock.json'), 'utf8'));
  writeFileSync(join(mirror, 'pyodide-lock.json'), lockWith(base, [wheel]));
  const rt = createPyodideRuntime({ packageIndexURL: `${mirror}/` }, { emit: () => undefined });
  try {
    // Names compare as PEP 503 does: case and -_. runs do not matter.
    const r = await rt.installPackage('Armature-Fixture.Indexed');
    assert.equal(r.ok, true, JSON.stringify(r));
    const v = await rt.execute('import armature_fixture_indexed\narmature_fixture_indexed.ANSWER');
    assert.equal(v.ok && v.value, 42);
  } finally {
    await rt.dispose();
  }
});

test('workspace sync: in (text and binary), out (new and changed files), deletions reported not applied, size limit', async () => {
  const bus = createEventBus();
  const ws = await createWorkspace({ store: memoryStore(), bus });
  await ws.write('data/in.txt', 'hello from js');
  await ws.write('data/blob.bin', new Uint8Array([0, 1, 2, 255]));
  await ws.write('gone.txt', 'delete me in python');
  const rt = createPyodideRuntime({ maxSyncBytes: 1_000_000 }, { emit: () => undefined, workspace: ws });
  try {
    const inRep = await rt.syncWorkspace('in');
    assert.deepEqual(inRep.in, { count: 3, bytes: 13 + 4 + 19, skipped: [] });
    const r = await rt.execute(`
import os
assert os.getcwd() == "/workspace", os.getcwd()
text = open("data/in.txt").read()
blob = list(open("/workspace/data/blob.bin", "rb").read())
open("/workspace/data/out.txt", "w").write(text.upper())
open("/workspace/data/in.txt", "a").write(" + python")
os.remove("/workspace/gone.txt")
(text, blob)`);
    assert.deepEqual(r.ok && r.value, ['hello from js', [0, 1, 2, 255]]);
    const outRep = await rt.syncWorkspace('out');
    assert.equal(outRep.out!.count, 2);
    assert.deepEqual(outRep.out!.deleted, ['gone.txt']);
    assert.equal(ws.readText('data/out.txt'), 'HELLO FROM JS');
    assert.equal(ws.readText('data/in.txt'), 'hello from js + python');
    assert.equal(ws.readText('gone.txt'), 'delete me in python', 'deletions are reported, not applied');
    // Nothing changed since: nothing moves.
    assert.equal((await rt.syncWorkspace('out')).out!.count, 0);
    // The agent's own modules, synced in, import from the working directory.
    await ws.write('helper.py', 'def twice(x):\n    return 2 * x\n');
    await rt.syncWorkspace('in');
    const imported = await rt.execute('import helper\nhelper.twice(21)');
    assert.equal(imported.ok && imported.value, 42, JSON.stringify(imported));
    await rt.execute('open("/workspace/huge.bin", "wb").write(b"x" * 2_000_000)');
    const big = await rt.syncWorkspace('both');
    assert.deepEqual(big.out!.skipped, ['huge.bin']);
  } finally {
    await rt.dispose();
  }
});
