// "executeTool never throws" holds whatever a bus listener does: listeners that throw on the events
// of a tool call and of a Python run are isolated, the other listeners still get every event, and
// each failing listener is reported once. A booted system with real Python.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '../../src/kernel/boot/boot.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import { withPersonas } from '../helpers/persona-overlay.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const PERSONA = { id: 'listeners', name: 'listeners', description: 'Bus listener test persona.', upgrades: ['ToolRunner', 'PyodideRuntime', 'PythonTool'], tools: ['execute_python'], skills: [] };

test('listeners that throw on tool:started, tool:finished and python:stdout: every executeTool resolves as usual, others see every event, each failure is reported once', async () => {
  const dataDir = tempDir('listeners');
  const sys = await boot({ persona: PERSONA.id, dataDir, platform: withPersonas(createNodePlatform({ dataDir }), [PERSONA]), config: { PyodideRuntime: { snapshot: 'memory' } } });
  after(() => sys.dispose());
  const broken = sys.bus.scope('Broken');
  for (const type of ['tool:started', 'tool:finished', 'python:stdout'] as const) {
    broken.on(type, () => {
      throw new Error(`listener of ${type} broke`);
    });
  }
  const seen = { started: 0, finished: 0, stdout: [] as string[] };
  sys.bus.on('tool:started', () => seen.started++);
  sys.bus.on('tool:finished', () => seen.finished++);
  sys.bus.on('python:stdout', (p) => seen.stdout.push(p.chunk));
  const failures: string[] = [];
  sys.bus.on('system:listener-failed', (p) => failures.push(`${p.owner} ${p.event}`));

  for (let i = 0; i < 3; i++) {
    const r = await sys.tools.executeTool<{ value: unknown; stdout: string }>('execute_python', { code: `print("line ${i}")\n40 + ${i}` });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.value.value, 40 + i);
    assert.equal(r.value.stdout, `line ${i}\n`);
  }
  assert.equal(seen.started, 3);
  assert.equal(seen.finished, 3);
  assert.equal(seen.stdout.join(''), 'line 0\nline 1\nline 2\n');
  assert.deepEqual(failures.sort(), ['Broken python:stdout', 'Broken tool:finished', 'Broken tool:started']);
});
