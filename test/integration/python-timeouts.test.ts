// The ToolRunner's time limit and execute_python's timeout_ms compose: the tighter ends the run and
// frees the runtime, and a timeout_ms outside the range a timer can hold is refused, naming the
// range — by the tool's schema and at run time. Booted systems, both isolations.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { PyodideRuntimeApi } from '../../upgrades/pyodide-runtime/contract.ts';
import type { PythonToolApi } from '../../upgrades/python-tool/python-tool-types.ts';
import { withPersonas } from '../helpers/persona-overlay.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const PERSONA = { id: 'timeouts', name: 'timeouts', description: 'Timeout test persona.', upgrades: ['ToolRunner', 'PyodideRuntime', 'PythonTool'], tools: ['execute_python'], skills: [] };
const RANGE = /1 to 2147483647/;

for (const isolation of ['process', 'thread'] as const) {
  describe(`timeouts compose (${isolation})`, () => {
    let sys: ArmatureSystem;
    before(async () => {
      const dataDir = tempDir('timeouts');
      sys = await boot({
        persona: PERSONA.id,
        dataDir,
        platform: withPersonas(createNodePlatform({ dataDir }), [PERSONA]),
        config: { PyodideRuntime: { isolation, snapshot: 'memory', interruptGraceMs: 300 } },
      });
      const r = await sys.tools.executeTool('execute_python', { code: 'kept = 41' });
      assert.ok(r.ok, JSON.stringify(r));
    });
    after(() => sys.dispose());

    /** A `1 + 1` that must answer within 10 s: a runtime still busy with the last run would not. */
    async function answersNow(): Promise<void> {
      const r = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: '1 + 1' }, { timeoutMs: 10_000 });
      assert.equal(r.ok && r.value.value, 2, JSON.stringify(r));
    }

    test("a 1 s ToolRunner limit ends a `while True` given timeout_ms 60000; the next run answers at once, globals kept", async () => {
      const r = await sys.tools.executeTool('execute_python', { code: 'while True:\n    pass', timeout_ms: 60_000 }, { timeoutMs: 1000 });
      assert.equal(!r.ok && r.error.code, 'TIMEOUT', JSON.stringify(r));
      await answersNow();
      const kept = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: 'kept + 1' });
      assert.equal(kept.ok && kept.value.value, 42, JSON.stringify(kept));
    });

    if (isolation === 'thread') {
      // What a loaded machine does to the runtime's own clock, made to happen every time: the
      // thread that decides on the replacement gets no turn for longer than the grace, right after
      // the limit fired (here the host's event loop is the one stalled; in `process` isolation that
      // thread is the child's, out of a test's reach, and the whole file is run under load instead).
      test("a 1 s ToolRunner limit, then the deciding thread stalled past the interrupt's grace: Python took the interrupt, so the runtime stays and globals are kept", async () => {
        const stall = sys.bus.on('tool:finished', (p) => {
          if (!p.ok && p.error?.code === 'TIMEOUT') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
        });
        try {
          const r = await sys.tools.executeTool('execute_python', { code: 'while True:\n    pass', timeout_ms: 60_000 }, { timeoutMs: 1000 });
          assert.equal(!r.ok && r.error.code, 'TIMEOUT', JSON.stringify(r));
        } finally {
          stall.dispose();
        }
        await answersNow();
        const kept = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: 'kept + 1' });
        assert.equal(kept.ok && kept.value.value, 42, JSON.stringify(kept));
      });
    }

    test('a loop inside C that ignores the interrupt: the runtime is replaced and the next run answers', async () => {
      const r = await sys.tools.executeTool('execute_python', { code: 'sum(range(10**13))', timeout_ms: 60_000 }, { timeoutMs: 1000 });
      assert.equal(!r.ok && r.error.code, 'TIMEOUT', JSON.stringify(r));
      await answersNow();
    });

    test('a timeout_ms tighter than the ToolRunner limit ends the run as a Python TimeoutError', async () => {
      const r = await sys.tools.executeTool('execute_python', { code: 'while True:\n    pass', timeout_ms: 300 }, { timeoutMs: 60_000 });
      assert.equal(!r.ok && r.error.code, 'TimeoutError', JSON.stringify(r));
      await answersNow();
    });

    test('timeout_ms out of range is refused by the schema, naming the range; nothing runs', async () => {
      const decl = sys.tools.getToolDeclarations().find((d) => d.name === 'execute_python')!;
      const prop = (decl.inputSchema.properties as Record<string, { minimum?: number; maximum?: number }>).timeout_ms!;
      assert.deepEqual([prop.minimum, prop.maximum], [1, 2 ** 31 - 1]);
      for (const timeout_ms of [2 ** 31, 2 ** 53, 0, -5]) {
        const r = await sys.tools.executeTool('execute_python', { code: 'ran = True', timeout_ms });
        assert.equal(!r.ok && r.error.code, 'INVALID_ARGUMENTS', JSON.stringify(r));
      }
      const ran = await sys.tools.executeTool('execute_python', { code: 'ran' });
      assert.equal(!ran.ok && ran.error.code, 'NameError', 'nothing ran');
    });

    test('at run time too: PythonTool and the runtime refuse a timeout a timer cannot hold, naming the range', async () => {
      const python = await sys.resolve<PythonToolApi>('PythonTool');
      const runtime = await sys.resolve<PyodideRuntimeApi>('PyodideRuntime');
      for (const timeout of [2 ** 31, 0, Number.NaN, Infinity]) {
        const viaTool = await python.executePython({ code: 'ran = True', timeout_ms: timeout });
        assert.equal(!viaTool.ok && viaTool.error.type, 'ValueError', JSON.stringify(viaTool));
        assert.match(!viaTool.ok ? viaTool.error.message : '', RANGE);
        const direct = await runtime.execute('ran = True', { timeoutMs: timeout });
        assert.equal(!direct.ok && direct.error.type, 'ValueError', JSON.stringify(direct));
        assert.match(!direct.ok ? `${direct.error.message} ${direct.hint}` : '', RANGE);
      }
      const ran = await runtime.execute('ran');
      assert.equal(!ran.ok && ran.error.type, 'NameError', 'nothing ran');
    });
  });
}
