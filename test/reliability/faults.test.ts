// Fault trials against the default runtime (Python in its confined child process): each fault ends
// with a clear result, and a `1 + 1` right after it works. `npm run soak` repeats them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';
import type { ExecuteResult, PyodideRuntimeApi } from '../../upgrades/pyodide-runtime/contract.ts';
import { SOAK } from './seeded.ts';
import { pythonChildPids } from '../helpers/python-children.ts';

const ROUNDS = SOAK ? 20 : 1;
let rt: PyodideRuntimeApi;
const stdout: Record<string, number> = {};

before(async () => {
  // A 1 GiB cap for the child: memory bombs end by replacing it (the heap cap alone is 4 GiB).
  rt = createPyodideRuntime(
    { processMemoryMb: 1024, defaultTimeoutMs: 20_000, interruptGraceMs: 500 },
    { emit: (type, p) => type === 'python:stdout' && (stdout[(p as { runId: string }).runId] = (stdout[(p as { runId: string }).runId] ?? 0) + (p as { chunk: string }).chunk.length) },
  );
  await rt.init();
});
after(() => rt.dispose());

/** A `1 + 1` answers 2: the runtime is usable. */
async function usable(after: string): Promise<void> {
  const r = await rt.execute('1 + 1');
  assert.equal(r.ok && r.value, 2, `after ${after}: ${JSON.stringify(r)}`);
}

function failedWith(r: ExecuteResult, types: string[], what: string): void {
  assert.equal(r.ok, false, `${what} succeeded`);
  if (!r.ok) assert.ok(types.includes(r.error.type), `${what}: ${r.error.type}: ${r.error.message}`);
}

const TRIALS: [string, () => Promise<void>][] = [
  ['a pure-Python endless loop', async () => failedWith(await rt.execute('while True:\n    pass', { timeoutMs: 300 }), ['TimeoutError'], 'loop')],
  ['an endless loop inside C', async () => failedWith(await rt.execute('sum(range(10**13))', { timeoutMs: 300 }), ['TimeoutError'], 'C loop')],
  [
    'a memory bomb',
    async () => failedWith(await rt.execute('hog = []\nwhile True:\n    hog.append(bytearray(64 * 1024 * 1024))', { timeoutMs: 60_000 }), ['MemoryError', 'WorkerCrashed'], 'memory bomb'),
  ],
  ['a recursion bomb', async () => failedWith(await rt.execute('def f(n):\n    return f(n + 1)\nf(0)'), ['RecursionError'], 'recursion')],
  ['a deep structure for C to recurse on', async () => failedWith(await rt.execute('import json\njson.loads("[" * 200000 + "]" * 200000)'), ['RecursionError', 'MemoryError'], 'deep json')],
  ['raise SystemExit', async () => failedWith(await rt.execute('raise SystemExit(3)'), ['SystemExit'], 'SystemExit')],
  ['os._exit', async () => failedWith(await rt.execute('import os\nos._exit(1)'), ['SystemExit'], 'os._exit')],
  ['a 200 MB return value', async () => failedWith(await rt.execute('"x" * (200 * 1024 * 1024)'), ['ResultTooLarge'], 'huge value')],
  [
    '20 concurrent runs',
    async () => {
      const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => rt.execute(`print("run ${i}")\n${i} * 2`, { runId: `c${i}` })));
      assert.deepEqual(
        rs.map((r) => r.ok && [r.value, r.stdout]),
        Array.from({ length: 20 }, (_, i) => [i * 2, `run ${i}\n`]),
      );
    },
  ],
  [
    '50 MB of output',
    async () => {
      const r = await rt.execute('import sys\nline = "y" * 1023 + "\\n"\nfor _ in range(50 * 1024):\n    sys.stdout.write(line)', { runId: 'flood', timeoutMs: 120_000 });
      assert.equal(r.ok, true, JSON.stringify(r).slice(0, 300));
      assert.ok(r.stdout.length <= 1.1 * 1024 * 1024, 'the result keeps a bounded tail');
      assert.equal(stdout.flood, 50 * 1024 * 1024, 'the events carry all of it');
      delete stdout.flood;
    },
  ],
  [
    'the child process killed from outside mid-run',
    async () => {
      const running = rt.execute('import time\ntime.sleep(30)', { timeoutMs: 60_000 });
      await new Promise((r) => setTimeout(r, 300));
      const ours = pythonChildPids();
      assert.ok(ours.length > 0);
      for (const pid of ours) process.kill(pid, 'SIGKILL');
      failedWith(await running, ['WorkerCrashed'], 'killed child');
    },
  ],
];

for (const [name, trial] of TRIALS) {
  test(`${name}${ROUNDS > 1 ? ` (${ROUNDS} rounds)` : ''}: it ends as it should, and 1 + 1 works after`, { timeout: SOAK ? 3_600_000 : 180_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await trial();
      await usable(name);
    }
  });
}
