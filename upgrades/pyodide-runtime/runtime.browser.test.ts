// The real runtime in Chromium: Pyodide in a module Web Worker, the page cross-origin isolated.
import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { createPyodideRuntime, type PyodideRuntimeApi } from './runtime.ts';
import { buildWheel } from '../../test/helpers/wheel.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { VALUE_CASES } from './value-cases.ts';

type Ev = { type: string; payload: any };

describe('PyodideRuntime in a Web Worker', () => {
  let rt: PyodideRuntimeApi;
  const events: Ev[] = [];
  before(async () => {
    expect(crossOriginIsolated, 'this suite needs the isolation headers').to.equal(true);
    rt = createPyodideRuntime({}, { emit: (type, payload) => events.push({ type, payload }) });
    await rt.init();
  });
  after(() => rt.dispose());

  it('reports load progress by stage, then ready, with the shared-memory transport', () => {
    const progress = events.filter((e) => e.type === 'python:progress').map((e) => e.payload);
    expect([...new Set(progress.map((p) => p.stage))]).to.deep.equal(['fetch', 'compile', 'stdlib', 'ready']);
    // In the browser the fetch stage counts real bytes, so it reports several steps.
    expect(progress.filter((p) => p.stage === 'fetch').length).to.be.greaterThan(3);
    const s = rt.getState();
    expect([s.status, s.pyodideVersion, s.transport]).to.deep.equal(['ready', '0.29.5', 'shared-memory']);
  });

  it('executes, keeps globals between runs, and resets', async () => {
    const r = await rt.execute('x = 6\nprint("hello")\nx * 7');
    expect(r.ok && [r.value, r.stdout]).to.deep.equal([42, 'hello\n']);
    expect((await rt.execute('x')).ok).to.equal(true);
    const tail = await rt.execute('import sys\nsys.stdout.write("no newline")');
    expect(tail.ok && tail.stdout).to.equal('no newline');
    await rt.reset();
    const gone = await rt.execute('x');
    expect(!gone.ok && gone.error.type).to.equal('NameError');
  });

  it('converts every kind of value by its stated rule', async () => {
    for (const c of VALUE_CASES) {
      const r = await rt.execute(c.code);
      expect(r.ok, `${c.rule}: ${JSON.stringify(r)}`).to.equal(true);
      const value = r.ok ? r.value : undefined;
      if (c.pattern) expect(String(value), c.rule).to.match(c.pattern);
      else expect(value, c.rule).to.deep.equal(c.expected);
    }
  });

  it('streams output of concurrent runs in order, each chunk tagged with its run', async () => {
    const start = events.length;
    const rs = await Promise.all(['A', 'B'].map((t) => rt.execute(`for i in range(500):\n    print("${t}", i)`, { runId: `b-${t}` })));
    expect(rs.every((r) => r.ok)).to.equal(true);
    for (const t of ['A', 'B']) {
      const text = events.slice(start).filter((e) => e.type === 'python:stdout' && e.payload.runId === `b-${t}`).map((e) => e.payload.chunk).join('');
      const lines = text.trimEnd().split('\n');
      expect(lines.length).to.equal(500);
      expect(lines.every((l, i) => l === `${t} ${i}`)).to.equal(true);
    }
  });

  it('interrupts a pure-Python infinite loop on timeout and keeps globals', async () => {
    await rt.execute('kept = [1, 2]');
    const r = await rt.execute('while True: pass', { timeoutMs: 300 });
    expect(!r.ok && r.error.type).to.equal('TimeoutError');
    expect(!r.ok && r.hint).to.match(/globals survived/);
    const k = await rt.execute('kept');
    expect(k.ok && k.value).to.deep.equal([1, 2]);
  });

  it('installs wheels offline: from bytes and from a URL served by the test server, whose origin the network policy allows', async () => {
    const allowed = createPyodideRuntime({ network: [location.origin] }, { emit: () => undefined });
    try {
      const w = await buildWheel('armature_fixture_inpage', '3.1.4', 'PI = 3.14\n');
      expect((await allowed.installPackage({ fileName: w.fileName, bytes: w.bytes })).ok).to.equal(true);
      const url = new URL('/__armature/test-wheels/armature_fixture_url-1.0.0-py3-none-any.whl', location.href).href;
      const r = await allowed.installPackage(url);
      expect(r.ok, JSON.stringify(r)).to.equal(true);
      const v = await allowed.execute('import armature_fixture_inpage, armature_fixture_url\n(armature_fixture_inpage.PI, armature_fixture_url.VALUE)');
      expect(v.ok && v.value).to.deep.equal([3.14, 'armature_fixture_url 1.0.0']);
      const names = (await allowed.listPackages()).map((p) => `${p.name}==${p.version}`);
      expect(names).to.include.members(['armature_fixture_inpage==3.1.4', 'armature_fixture_url==1.0.0']);
      const missing = await allowed.installPackage(new URL('/__armature/test-wheels/nope.whl', location.href).href);
      expect(missing.ok).to.equal(false);
    } finally {
      await allowed.dispose();
    }
  });

  it('refuses a wheel URL the network policy does not allow, before any request; the package index stays allowed', async () => {
    const { origin } = (await (await fetch('/__armature/test-probe/cors-origin')).json()) as { origin: string };
    const token = `install-${Date.now()}`;
    const index = new URL('/__armature/test-index/', location.href).href;
    const none = createPyodideRuntime({ packageIndexURL: index }, { emit: () => undefined });
    try {
      for (const url of [`${origin}/__armature/test-probe/hit/${token}/exfil/secret/p-1.0-py3-none-any.whl`, new URL(`/__armature/test-probe/hit/${token}/p-1.0-py3-none-any.whl`, location.href).href]) {
        for (const session of [undefined, 'installer']) {
          const r = await none.installPackage(url, session === undefined ? {} : { session });
          expect(!r.ok && r.error.type, JSON.stringify(r)).to.equal('NETWORK_DENIED');
          expect(!r.ok && r.error.message).to.match(/is not under the package index .*test-index\/\), and the network policy allows no origin/);
        }
      }
      const hits = (await (await fetch(`/__armature/test-probe/hits/${token}`)).json()) as string[];
      expect(hits, 'no request was made').to.deep.equal([]);
      // A wheel under the configured index is the allowed default.
      const under = await none.installPackage(`${index}armature_fixture_under-1.0.0-py3-none-any.whl`);
      expect(under.ok, JSON.stringify(under)).to.equal(true);
    } finally {
      await none.dispose();
    }
  });

  it('syncs workspace files in and out', async () => {
    const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus() });
    await ws.write('a.txt', 'from the page');
    await ws.write('bin/raw.dat', new Uint8Array([0, 128, 255]));
    const synced = createPyodideRuntime({}, { emit: () => undefined, workspace: ws });
    try {
      expect((await synced.syncWorkspace('in')).in).to.deep.equal({ count: 2, bytes: 13 + 3, skipped: [] });
      const r = await synced.execute(`
open("/workspace/b.txt", "w").write(open("/workspace/a.txt").read().upper())
data = open("/workspace/bin/raw.dat", "rb").read()
open("/workspace/bin/rev.dat", "wb").write(data[::-1])
list(data)`);
      expect(r.ok && r.value).to.deep.equal([0, 128, 255]);
      const out = await synced.syncWorkspace('out');
      expect([out.out!.count, out.out!.bytes, out.out!.deleted]).to.deep.equal([2, 13 + 3, []]);
      expect(ws.readText('b.txt')).to.equal('FROM THE PAGE');
      expect([...ws.read('bin/rev.dat')]).to.deep.equal([255, 128, 0]);
    } finally {
      await synced.dispose();
    }
  });

  // Last in this suite: the heap it grows is only given back when the worker is disposed.
  it('ends memory bombs as clean errors; a heap left full restarts the worker, saying globals were lost, and real runs work after', async () => {
    const s = await rt.execute("'x' * 10**10");
    expect(!s.ok && ['MemoryError', 'OverflowError'].includes(s.error.type), JSON.stringify(s)).to.equal(true);
    const grow = await rt.execute('hog = []\nwhile True:\n    hog.append(bytearray(50 * 1024 * 1024))', { timeoutMs: 60_000 });
    expect(!grow.ok && grow.error.type, JSON.stringify(grow)).to.equal('MemoryError');
    expect(`${!grow.ok && grow.hint} ${grow.notice}`).to.match(/globals.*lost/);
    const after = await rt.execute('len(bytearray(64 * 1024 * 1024))');
    expect(after.ok && after.value, JSON.stringify(after)).to.equal(64 * 1024 * 1024);
    const gone = await rt.execute('hog');
    expect(!gone.ok && gone.error.type).to.equal('NameError');
  });
});

describe('PyodideRuntime in a Web Worker: recovery and packages', () => {
  it('replaces a worker stuck in a C loop and is usable after', async () => {
    const rt = createPyodideRuntime({ interruptGraceMs: 500 }, { emit: () => undefined });
    try {
      const r = await rt.execute('sum(range(10**13))', { timeoutMs: 200 });
      expect(!r.ok && r.error.type).to.equal('TimeoutError');
      expect(!r.ok && r.hint).to.match(/restarted/);
      const after = await rt.execute('2 + 2');
      expect(after.ok && after.value).to.equal(4);
      expect(rt.getState().restarts).to.equal(1);
      expect(rt.getState().fromSnapshot, 'the replacement restores the memory snapshot').to.equal(true);
    } finally {
      await rt.dispose();
    }
  });

  it('survives an uncaught error inside the worker and comes back on the next run', async () => {
    const rt = createPyodideRuntime({}, { emit: () => undefined });
    try {
      await rt.init();
      // A Python function raising inside a JS timer: an uncaught error in the worker (no eval: the worker is confined).
      await rt.execute('import js\nfrom pyodide.ffi import create_once_callable\ndef boom():\n    raise RuntimeError("boom in worker")\njs.setTimeout(create_once_callable(boom), 50)');
      for (let i = 0; i < 100 && rt.getState().status !== 'error'; i++) await new Promise((r) => setTimeout(r, 50));
      expect(rt.getState().status).to.equal('error');
      expect(rt.getState().lastError?.message).to.match(/boom in worker/);
      const r = await rt.execute('"back"');
      expect(r.ok && r.value).to.equal('back');
      expect(rt.getState().restarts).to.equal(1);
    } finally {
      await rt.dispose();
    }
  });

  it('installs by name through a configured package index (a local mirror)', async () => {
    const rt = createPyodideRuntime({ packageIndexURL: new URL('/__armature/test-index/', location.href).href }, { emit: () => undefined });
    try {
      const r = await rt.installPackage('armature_fixture_indexed');
      expect(r.ok, JSON.stringify(r)).to.equal(true);
      const v = await rt.execute('import armature_fixture_indexed\narmature_fixture_indexed.VALUE');
      expect(v.ok && v.value).to.equal('armature_fixture_indexed 2.0.0');
    } finally {
      await rt.dispose();
    }
  });
});
