// PythonTool over runtimes set up otherwise than the shared suite's: the workspace synced in and
// out, a runtime that cannot start, and no synchronous transport (call_tool_async only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createPyodideRuntime, type PyodideRuntimeApi, type PyodideRuntimeOptions } from '../pyodide-runtime/runtime.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { WorkspaceApi } from '../workspace/contract.ts';
import type { PythonToolApi } from './python-tool-types.ts';
import { createPythonTool } from './python-tool.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';

const persona: Persona = { id: 'p', name: 'Test persona', description: 'd', upgrades: [], tools: ['*'], skills: [] };

/** A PythonTool over a runtime made with `options` (and `workspace`), given to `fn`, then disposed. */
async function withTool(
  options: PyodideRuntimeOptions,
  fn: (t: { api: PythonToolApi; runtime: PyodideRuntimeApi; runner: ToolRunnerApi }) => Promise<void>,
  extra: { workspace?: WorkspaceApi; readyTimeoutMs?: number } = {},
): Promise<void> {
  const bus = createEventBus();
  const runtime = createPyodideRuntime(options, { emit: () => undefined, ...(extra.workspace ? { workspace: extra.workspace } : {}) });
  const runner = createToolRunner({ bus, persona });
  const { api } = createPythonTool({ runtime, runner, persona, bus, ...(extra.readyTimeoutMs ? { readyTimeoutMs: extra.readyTimeoutMs } : {}) });
  try {
    await fn({ api, runtime, runner });
  } finally {
    await runtime.dispose();
  }
}

test('sync_workspace: Python sees workspace files and its changes are written back', async () => {
  const ws = await createWorkspace({ store: memoryStore(), bus: createEventBus() });
  await ws.write('in.csv', 'a,b\n1,2\n');
  await withTool({}, async ({ api }) => {
    const r = await api.executePython({ code: 'import csv\nrows = list(csv.reader(open("/workspace/in.csv")))\nopen("/workspace/out.txt", "w").write(str(len(rows)))\nrows', sync_workspace: true });
    assert.deepEqual(r.ok && r.value, [['a', 'b'], ['1', '2']]);
    assert.deepEqual(r.sync?.in?.count, 1);
    assert.deepEqual(r.sync?.out?.count, 1);
    assert.equal(ws.readText('out.txt'), '2');
  }, { workspace: ws });
});

test('a runtime that cannot become ready gives a friendly error, not a hang or a throw', async () => {
  await withTool({ indexURL: '/nonexistent/pyodide/' }, async ({ api }) => {
    const r = await api.executePython({ code: '1' });
    assert.equal(!r.ok && r.error.type, 'RuntimeNotReady');
    assert.match(!r.ok ? r.hint ?? '' : '', /Restart the runtime/);
  }, { readyTimeoutMs: 20_000 });
});

test('without a synchronous transport, call_tool explains the isolation headers and call_tool_async works', async () => {
  await withTool({ transport: 'async' }, async ({ api, runtime, runner }) => {
    runner.registerTools([{ name: 'echo', description: 'echo tool.', module: 'TestKit', pythonCallable: true, inputSchema: { type: 'object', properties: { value: {} } } }], (_n, a) => a.value);
    const sync = await api.executePython({ code: 'call_tool("echo", {"value": 1})' });
    assert.equal(!sync.ok && sync.error.type, 'RuntimeError');
    assert.match(!sync.ok ? sync.error.message : '', /Cross-Origin-Opener-Policy: same-origin.*Cross-Origin-Embedder-Policy: require-corp.*await call_tool_async/s);
    const asyncOk = await api.executePython({ code: 'await call_tool_async("echo", {"value": {"k": [1, None]}})' });
    assert.deepEqual(asyncOk.ok && asyncOk.value, { k: [1, null] });
    assert.equal(runtime.getState().transport, 'async');
  });
});
