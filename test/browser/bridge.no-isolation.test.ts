// call_tool in Chromium on a page served WITHOUT the cross-origin isolation headers: no
// SharedArrayBuffer, so the bridge uses JSPI (run_sync) or, failing that, call_tool_async only.
import { expect } from 'chai';
import { bridgeFixture } from '../helpers/bridge-fixture.ts';
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';

describe('call_tool without cross-origin isolation', () => {
  it('the page really is not isolated', () => {
    expect(crossOriginIsolated).to.equal(false);
    expect(typeof SharedArrayBuffer).to.equal('undefined');
  });

  it('picks JSPI and call_tool stays synchronous from Python', async () => {
    const f = bridgeFixture();
    try {
      const r = await f.python.executePython({ code: 'r = call_tool("echo", {"value": {"k": [1, None, "é"]}})\n(r, len(call_tool("big_text", {"mb": 1})))' });
      expect(r.ok && r.value, JSON.stringify(r)).to.deep.equal([{ k: [1, null, 'é'] }, 1024 * 1024]);
      expect(f.runtime.getState().transport).to.equal('jspi');
      const e = await f.python.executePython({ code: 'try:\n    call_tool("fail")\nexcept ToolError as e:\n    out = e.code\nout' });
      expect(e.ok && e.value).to.equal('TOOL_FAILED');
    } finally {
      await f.runtime.dispose();
    }
  });

  it('with neither shared memory nor JSPI, call_tool explains the headers and call_tool_async works', async () => {
    const f = bridgeFixture({ transport: 'async' });
    try {
      const sync = await f.python.executePython({ code: 'call_tool("echo", {"value": 1})' });
      expect(!sync.ok && sync.error.message).to.match(/Cross-Origin-Opener-Policy: same-origin.*Cross-Origin-Embedder-Policy: require-corp/);
      const r = await f.python.executePython({ code: 'await call_tool_async("echo", {"value": [1, 2]})' });
      expect(r.ok && r.value).to.deep.equal([1, 2]);
    } finally {
      await f.runtime.dispose();
    }
  });

  it('forcing the shared-memory transport here is refused at once, naming the missing headers', () => {
    let error: (Error & { code?: string; hint?: string }) | undefined;
    try {
      createPyodideRuntime({ transport: 'shared-memory' }, { emit: () => undefined });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.code).to.equal('INVALID_RUNTIME_OPTION');
    expect(error?.message).to.match(/option transport "shared-memory": SharedArrayBuffer is not available: serve the page with 'Cross-Origin-Opener-Policy: same-origin' and 'Cross-Origin-Embedder-Policy: require-corp'/);
    expect(error?.hint).to.match(/use 'auto' or 'jspi'/);
  });

  it('a timeout without an interrupt buffer still ends the run by restarting the worker', async () => {
    const f = bridgeFixture({ interruptGraceMs: 300 });
    try {
      const r = await f.runtime.execute('while True: pass', { timeoutMs: 200 });
      expect(!r.ok && r.error.type).to.equal('TimeoutError');
      expect((await f.runtime.execute('1 + 1')).ok).to.equal(true);
    } finally {
      await f.runtime.dispose();
    }
  });
});
