// PythonTool over runtimes set up otherwise than the shared suite's: the workspace synced in and
// out, a runtime that cannot start, and no synchronous transport (call_tool_async only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createPyodideRuntime } from '../pyodide-runtime/runtime.ts';
import { createPythonTool } from './python-tool.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';

const persona: Persona = { id: 'p', name: 'Test persona', description: 'd', upgrades: [], tools: ['*'], skills: [] };

test('sync_workspace: Python sees workspace files and its changes are written back', async () => {
  const bus = createEventBus();
  const ws = await createWorkspace({ store: memoryStore(), bus });
  await ws.write('in.csv', 'a,b\n1,2\n');
  const runtime = createPyodideRuntime({}, { emit: () => undefined, workspace: ws });
  const runner = createToolRunner({ bus, persona });
  const { api } = createPythonTool({ runtime, runner, persona, bus });
  try {
    const r = await api.executePython({ code: 'import csv\nrows = list(csv.reader(open("/workspace/in.csv")))\nopen("/workspace/out.txt", "w").write(str(len(rows)))\nrows', sync_workspace: true });
    assert.deepEqual(r.ok && r.value, [['a', 'b'], ['1', '2']]);
    assert.deepEqual(r.sync?.in?.count, 1);
    assert.deepEqual(r.sync?.out?.count, 1);
    assert.equal(ws.readText('out.txt'), '2');
  } finally {
    await runtime.dispose();
  }
});

test('a runtime that cannot become ready gives a friendly error, not a hang or a throw', async () => {
  const bus = createEventBus();
  const runtime = createPyodideRuntime({ indexURL: '/nonexistent/pyodide/' }, { emit: () => undefined });
  const runner = createToolRunner({ bus, persona });
  const { api } = createPythonTool({ runtime, runner, persona, bus, readyTimeoutMs: 20_000 });
  try {
    const r = await api.executePython({ code: '1' });
    assert.equal(!r.ok && r.error.type, 'RuntimeNotReady');
    assert.match(!r.ok ? r.hint ?? '' : '', /Restart the runtime/);
  } finally {
    await runtime.dispose();
  }
});

test('without a synchronous transport, call_tool explains the isolation headers and call_tool_async works', async () => {
  const bus = createEventBus();
  const runtime = createPyodideRuntime({ transport: 'async' }, { emit: () => undefined });
  const runner = createToolRunner({ bus, persona });
  runner.registerTools([{ name: 'echo', description: 'echo tool.', module: 'TestKit', pythonCallable: true, inputSchema: { type: 'object', properties: { value: {} } } }], (_n, a) => a.value);
  const { api } = createPythonTool({ runtime, runner, persona, bus });
  try {
    const sync = await api.executePython({ code: 'call_tool("echo", {"value": 1})' });
    assert.equal(!sync.ok && sync.error.type, 'RuntimeError');
    assert.match(!sync.ok ? sync.error.message : '', /Cross-Origin-Opener-Policy: same-origin.*Cross-Origin-Embedder-Policy: require-corp.*await call_tool_async/s);
    const asyncOk = await api.executePython({ code: 'await call_tool_async("echo", {"value": {"k": [1, None]}})' });
    assert.deepEqual(asyncOk.ok && asyncOk.value, { k: [1, null] });
    assert.equal(runtime.getState().transport, 'async');
  } finally {
    await runtime.dispose();
  }
});
