// The persisted start-up snapshot with real Pyodide and a real cache folder: made, kept, restored
// (with everything working after the restore), replaced when broken, and never touched when off.
// Each "new process" here forgets the in-memory copies; test/e2e/snapshot.test.ts uses real ones.
// Both isolations: a confined child's snapshots are kept by the host under keys of their own.
import { test, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openDirectoryCache } from '../../../src/platform/node-cache.ts';
import type { BlobCache } from '../../../src/platform/platform.ts';
import { buildWheel } from '../../../test/helpers/wheel.ts';
import { tempDir } from '../../../test/helpers/temp-dir.ts';
import { createPyodideRuntime, type PyodideRuntimeOptions } from '../runtime.ts';
import { forgetMemorySnapshots, snapshotKey } from './snapshot-store.ts';

const warnings: string[] = [];
const warn = console.warn;
console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
after(() => {
  console.warn = warn;
});

/** Pyodide's snapshot header starts with this magic number (little-endian uint32). */
const PYODIDE_MAGIC = 1886286592;
const magic = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true);
/** What a confined child's snapshot is kept under, after the key of the unconfined runtime's. */
const CONFINED = '.confined';

for (const isolation of ['process', 'thread'] as const) {
  describe(`the start-up snapshot, ${isolation} isolation`, () => {
    const dir = join(tempDir(`snapshot-${isolation}`), 'cache');
    const cache = openDirectoryCache(dir);

    async function startInNewProcess(options: PyodideRuntimeOptions = {}) {
      forgetMemorySnapshots();
      const events: { type: string; payload: any }[] = [];
      const rt = createPyodideRuntime({ snapshotCache: cache, isolation, ...options }, { emit: (type, payload) => events.push({ type, payload }) });
      await rt.init();
      const progress = events.filter((e) => e.type === 'python:progress').map((e) => String(e.payload.message ?? ''));
      return { rt, events, progress };
    }

    const suffix = isolation === 'process' ? CONFINED : '';
    const file = async () => join(dir, (await snapshotKey()) + suffix);

    test('the first start makes the snapshot and keeps it in the cache folder', async () => {
      const { rt, progress } = await startInNewProcess();
      assert.equal(rt.getState().fromSnapshot, false);
      assert.ok(progress.includes('starting Python'), progress.join(' | '));
      await rt.dispose();
      const bytes = readFileSync(await file());
      assert.ok(bytes.byteLength > 10_000_000, `a snapshot of the whole heap, got ${bytes.byteLength} bytes`);
      assert.equal(magic(bytes), PYODIDE_MAGIC);
      assert.deepEqual(await cache.keys(), [(await snapshotKey()) + suffix]);
    });

    test("a runtime the pool starts for a session restores it too, and does not make it again", async () => {
      forgetMemorySnapshots();
      const before = statSync(await file()).mtimeMs;
      // The cache as the host sees it, each read counted (without a folder, a confined child's
      // reads come through the host too). Pool runtimes report no progress of their own.
      const reads: string[] = [];
      const counted: BlobCache = {
        get: (key) => (reads.push(key), cache.get(key)),
        put: (key, data) => cache.put(key, data),
        delete: (key) => cache.delete(key),
        keys: () => cache.keys(),
      };
      // No warm spare: the one runtime started is the session's.
      const rt = createPyodideRuntime({ snapshotCache: counted, isolation, poolSize: 2, poolSpares: 0 }, { emit: () => undefined });
      try {
        const r = await rt.execute('6 * 7', { session: 'pooled' });
        assert.equal(r.ok && r.value, 42, JSON.stringify(r));
        assert.deepEqual([rt.getState().pool!.sessions, rt.getState().status], [1, 'idle'], 'only the session runtime started');
        assert.deepEqual(reads, [basename(await file())], 'the session runtime read the persisted snapshot');
      } finally {
        await rt.dispose();
      }
      // A snapshot that did not restore is made again: this one was not.
      assert.equal(statSync(await file()).mtimeMs, before, 'the snapshot was not made again');
    });

    test('the next process restores it; output, call_tool, interrupts, installs and imports all work', async () => {
      const calls: string[] = [];
      const { rt, progress, events } = await startInNewProcess({
        onToolCall: async (name, args) => {
          calls.push(name);
          return { ok: true, value: { echoed: args } };
        },
      });
      try {
        assert.equal(rt.getState().fromSnapshot, true);
        assert.ok(progress.includes('restoring Python from the start-up snapshot'), progress.join(' | '));
        const r = await rt.execute('import sys\nprint("out")\nprint("err", file=sys.stderr)\ncall_tool("echo", {"n": 1})', { runId: 'restored' });
        assert.deepEqual(r.ok && [r.value, r.stdout, r.stderr], [{ echoed: { n: 1 } }, 'out\n', 'err\n']);
        assert.deepEqual(calls, ['echo']);
        assert.ok(events.some((e) => e.type === 'python:stdout' && e.payload.runId === 'restored' && e.payload.chunk === 'out\n'));
        const gen = await rt.execute('from tools import nothing', { runId: 'missing' });
        assert.equal(!gen.ok && gen.error.type, 'ModuleNotFoundError');
        await rt.setPythonModules([{ path: 'tools/__init__.py', source: '' }, { path: 'tools/demo.py', source: 'def hello():\n    return "hello from a generated module"\n' }]);
        const mod = await rt.execute('from tools.demo import hello\nhello()');
        assert.equal(mod.ok && mod.value, 'hello from a generated module');
        await rt.execute('kept = 5');
        const loop = await rt.execute('while True:\n    pass', { timeoutMs: 300 });
        assert.equal(!loop.ok && loop.error.type, 'TimeoutError');
        assert.match(!loop.ok ? loop.hint ?? '' : '', /globals survived/);
        const pending = rt.execute('import time\nwhile True:\n    time.sleep(0.01)');
        await new Promise((res) => setTimeout(res, 200));
        rt.interrupt();
        const stopped = await pending;
        assert.equal(!stopped.ok && stopped.error.type, 'KeyboardInterrupt');
        const wheel = await buildWheel('armature_fixture_restored', '1.0.0', 'VALUE = "installed after a restore"\n');
        const wheelPath = join(tempDir('snapshot-wheel'), wheel.fileName);
        writeFileSync(wheelPath, wheel.bytes);
        assert.equal((await rt.installPackage(wheelPath)).ok, true);
        const imported = await rt.execute('import armature_fixture_restored\n(armature_fixture_restored.VALUE, kept)');
        assert.deepEqual(imported.ok && imported.value, ['installed after a restore', 5]);
        assert.ok((await rt.listPackages()).some((p) => p.name === 'armature_fixture_restored'));
        const tb = await rt.execute('def f():\n    return 1/0\nf()');
        assert.match(!tb.ok ? tb.error.traceback : '', /File "<python:\d+>", line 2, in f/);
      } finally {
        await rt.dispose();
      }
    });

    test('a corrupt snapshot file falls back to a normal start, says so once, and is made again', async () => {
      const path = await file();
      writeFileSync(path, new Uint8Array(4096).fill(0x5a));
      warnings.length = 0;
      const { rt, progress } = await startInNewProcess();
      assert.equal(rt.getState().fromSnapshot, false);
      const r = await rt.execute('6 * 7');
      assert.equal(r.ok && r.value, 42);
      await rt.dispose();
      assert.ok(progress.some((m) => /the start-up snapshot could not be restored \(.*magic.*\): starting Python without it/.test(m)), progress.join(' | '));
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0]!, /could not be restored .*Python started without it\. A new snapshot was made\./);
      assert.equal(magic(readFileSync(path)), PYODIDE_MAGIC, 'the file was replaced by a good snapshot');
      const again = await startInNewProcess();
      assert.equal(again.rt.getState().fromSnapshot, true);
      await again.rt.dispose();
    });

    test('a snapshot of another Pyodide build (a mismatched build id) is refused and made again', async () => {
      const path = await file();
      const bytes = readFileSync(path);
      // Bytes 16..47 of Pyodide's header hold the build id the runtime checks.
      bytes.fill(0xab, 16, 48);
      writeFileSync(path, bytes);
      warnings.length = 0;
      const { rt, progress } = await startInNewProcess();
      assert.equal(rt.getState().fromSnapshot, false);
      await rt.dispose();
      assert.ok(progress.some((m) => /could not be restored \(Snapshot build id mismatch/.test(m)), progress.join(' | '));
      assert.equal(warnings.length, 1);
      const again = await startInNewProcess();
      assert.equal(again.rt.getState().fromSnapshot, true);
      await again.rt.dispose();
    });

    test("snapshot: 'off' neither reads nor writes the cache", async () => {
      const path = await file();
      writeFileSync(path, new Uint8Array(4096).fill(0x5a));
      const before = statSync(path).mtimeMs;
      warnings.length = 0;
      const { rt, progress } = await startInNewProcess({ snapshot: 'off' });
      assert.equal(rt.getState().fromSnapshot, false);
      const r = await rt.execute('1 + 1');
      assert.equal(r.ok && r.value, 2);
      await rt.restart();
      assert.equal(rt.getState().fromSnapshot, false, 'restarts start anew too');
      await rt.dispose();
      assert.equal(statSync(path).mtimeMs, before);
      assert.deepEqual(readFileSync(path), Buffer.from(new Uint8Array(4096).fill(0x5a)));
      assert.deepEqual(warnings, []);
      assert.ok(!progress.some((m) => /snapshot/.test(m)), progress.join(' | '));
    });
  });
}

test("a confined child's snapshot is never restored by an unconfined runtime, nor the other way round", async () => {
  const cache = openDirectoryCache(join(tempDir('snapshot-cross'), 'cache'));
  const key = await snapshotKey();
  const start = async (isolation: 'process' | 'thread') => {
    forgetMemorySnapshots();
    const rt = createPyodideRuntime({ snapshotCache: cache, isolation }, { emit: () => undefined });
    await rt.init();
    const fromSnapshot = rt.getState().fromSnapshot;
    await rt.dispose();
    return fromSnapshot;
  };
  assert.equal(await start('process'), false);
  assert.deepEqual(await cache.keys(), [key + CONFINED]);
  // The child's snapshot is code the host cannot check: the unconfined runtime makes its own.
  assert.equal(await start('thread'), false);
  assert.deepEqual(await cache.keys(), [key, key + CONFINED], "the thread's clean-up leaves the child's snapshot alone");
  assert.equal(await start('process'), true);
  assert.equal(await start('thread'), true);
  assert.deepEqual(await cache.keys(), [key, key + CONFINED]);
});

test('a confined child reads its snapshot from the cache folder itself; without a folder the host sends it', async () => {
  const dir = join(tempDir('snapshot-own-read'), 'cache');
  const disk = openDirectoryCache(dir);
  const asked: string[] = [];
  /** The cache as the host sees it, counting the snapshots it is asked for; `folder` only when kept. */
  const counted = (withFolder: boolean): BlobCache => ({
    ...(withFolder ? { folder: disk.folder } : {}),
    get: (key) => (asked.push(key), disk.get(key)),
    put: (key, bytes) => disk.put(key, bytes),
    delete: (key) => disk.delete(key),
    keys: () => disk.keys(),
  });
  const start = async (cache: BlobCache) => {
    forgetMemorySnapshots();
    const rt = createPyodideRuntime({ snapshotCache: cache, isolation: 'process' }, { emit: () => undefined });
    await rt.init();
    const state = { fromSnapshot: rt.getState().fromSnapshot, two: await rt.execute('1 + 1') };
    await rt.dispose();
    return state;
  };
  assert.equal((await start(counted(true))).fromSnapshot, false, 'the first start makes it');
  asked.length = 0;
  const own = await start(counted(true));
  assert.equal(own.fromSnapshot, true);
  assert.equal(own.two.ok && own.two.value, 2);
  assert.deepEqual(asked, [], 'the child read the file itself');
  const sent = await start(counted(false));
  assert.equal(sent.fromSnapshot, true);
  assert.deepEqual(asked, [(await snapshotKey()) + CONFINED], 'a cache without a folder is asked through the host');
});

test('a snapshot option the runtime does not know is refused, naming the value', () => {
  assert.throws(() => createPyodideRuntime({ snapshot: 'disk' as never }, { emit: () => undefined }), /option snapshot "disk": it must be 'persist', 'memory' or 'off'/);
});
