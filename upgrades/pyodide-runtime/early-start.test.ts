// Python's child started ahead of boot (as `armature run` and `armature mcp` do): the runtime
// boot creates takes that very process, and a runtime with other options does not. Inside the
// child, the worker started before the options came is the one the runtime takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '../../src/index.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import { pythonChildPids } from '../../test/helpers/python-children.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { pyodideWorkerScript } from '../../src/platform/package-layout.ts';
import { startPythonEarly } from './early-start.ts';
import { startPythonChild, startPythonChildEarly } from './process/process-link.ts';
import { createPyodideRuntime } from './runtime.ts';
import { defaultIndexURL, spawnWorker, spawnWorkerEarly } from './host/worker-handle.ts';
import { until } from '../../test/helpers/until.ts';


test('the runtime boot creates takes the child started early: the same process runs Python, and no other starts', async () => {
  const before = new Set(pythonChildPids());
  const platform = createNodePlatform({ dataDir: tempDir('early-start') });
  const config = { autoStart: true, snapshot: 'off' } as const;
  assert.equal(await startPythonEarly(config, platform), true);
  await until('the early child', () => pythonChildPids().some((p) => !before.has(p)));
  const early = pythonChildPids().filter((p) => !before.has(p));
  assert.equal(early.length, 1, `one child started early: ${early.join(' ')}`);
  const sys = await boot({ platform, config: { PyodideRuntime: config } });
  try {
    const r = await sys.tools.executeTool<{ value: number }>('execute_python', { code: '6 * 7' });
    assert.ok(r.ok && r.value.value === 42, JSON.stringify(r));
    assert.deepEqual(pythonChildPids().filter((p) => !before.has(p)), early, 'Python ran in the child started early');
  } finally {
    await sys.dispose();
  }
});

test('a child started early for other options is not taken: the runtime starts its own', async () => {
  const before = new Set(pythonChildPids());
  const platform = createNodePlatform({ dataDir: tempDir('early-start-other') });
  assert.equal(await startPythonEarly({ autoStart: true, snapshot: 'off', processMemoryMb: 3000 }, platform), true);
  await until('the early child', () => pythonChildPids().some((p) => !before.has(p)));
  const early = pythonChildPids().filter((p) => !before.has(p));
  const sys = await boot({ platform, config: { PyodideRuntime: { autoStart: true, snapshot: 'off' } } });
  try {
    const r = await sys.tools.executeTool<{ value: number }>('execute_python', { code: '6 * 7' });
    assert.ok(r.ok && r.value.value === 42, JSON.stringify(r));
    const now = pythonChildPids().filter((p) => !before.has(p));
    assert.equal(now.length, 2, `the early child and the runtime's own: ${now.join(' ')}`);
    assert.ok(early.every((p) => now.includes(p)));
  } finally {
    await sys.dispose();
  }
});

test('a child started early that nobody takes is stopped after its wait; a later start makes a new one', async () => {
  const before = new Set(pythonChildPids());
  const launch = { memoryMb: 2900, maxFrameBytes: 1 << 20 };
  startPythonChildEarly(launch, 300);
  await until('the early child', () => pythonChildPids().some((p) => !before.has(p)));
  const [early] = pythonChildPids().filter((p) => !before.has(p));
  await until('the unclaimed child to stop', () => !pythonChildPids().includes(early!));
  const { child } = await startPythonChild(launch);
  try {
    await until('the new child', () => pythonChildPids().some((p) => !before.has(p)));
    assert.equal(child.ended, false, 'not the stopped one');
    assert.notEqual(pythonChildPids().filter((p) => !before.has(p))[0], early);
  } finally {
    await child.terminate();
  }
});

test('a child started early is stopped once its signal says nothing will take it (its upgrade failed or was disposed)', async () => {
  const before = new Set(pythonChildPids());
  const platform = createNodePlatform({ dataDir: tempDir('early-start-abort') });
  const config = { autoStart: true, snapshot: 'off', processMemoryMb: 3100 } as const;
  const boot = new AbortController();
  assert.equal(await startPythonEarly(config, platform, boot.signal), true);
  await until('the early child', () => pythonChildPids().some((p) => !before.has(p)));
  const [early] = pythonChildPids().filter((p) => !before.has(p));
  boot.abort();
  await until('the unclaimed child to stop', () => !pythonChildPids().includes(early!));
  assert.equal(await startPythonEarly(config, platform, boot.signal), false, 'an aborted signal starts nothing');
  assert.deepEqual(pythonChildPids().filter((p) => !before.has(p)), []);
});

test('nothing starts early when boot would not start Python (autoStart off, or thread isolation)', async () => {
  const before = new Set(pythonChildPids());
  const platform = createNodePlatform({ dataDir: tempDir('early-start-none') });
  assert.equal(await startPythonEarly({ autoStart: false }, platform), false);
  assert.equal(await startPythonEarly({ isolation: 'thread' }, platform), false);
  assert.equal(await startPythonEarly({ snapshot: 'sometimes' as 'off' }, platform), false, 'a bad option starts nothing (boot reports it)');
  assert.deepEqual(pythonChildPids().filter((p) => !before.has(p)), []);
});

test("a worker started early (as the confined child starts its own) is the one the runtime's start takes, and runs Python", async () => {
  const url = String(pyodideWorkerScript);
  const early = spawnWorkerEarly(url, { indexURL: await defaultIndexURL(), confine: false });
  const rt = createPyodideRuntime({ isolation: 'thread', workerUrl: url, snapshot: 'off', poolSize: 1 }, { emit: () => undefined });
  try {
    const r = await rt.execute('6 * 7');
    assert.ok(r.ok && r.value === 42, JSON.stringify(r));
    // Ending the early worker ends the runtime's: it was that worker.
    await (await early).terminate();
    await until('the runtime to see its worker gone', () => rt.getState().status !== 'ready');
    const after = await rt.execute('1 + 1');
    assert.ok(after.ok && after.value === 2, `a new worker starts: ${JSON.stringify(after)}`);
    assert.equal(rt.getState().restarts, 1);
  } finally {
    await rt.dispose();
  }
});

test('a worker started early that died before it was taken is not taken', async () => {
  const url = String(pyodideWorkerScript);
  const early = await spawnWorkerEarly(url, { indexURL: await defaultIndexURL(), confine: false });
  await early.terminate();
  // Its exit has been seen once a fresh worker comes back instead.
  const fresh = await spawnWorker(url);
  try {
    assert.notEqual(fresh, early);
  } finally {
    await fresh.terminate();
  }
});
