// call_tool in Chromium over shared memory (the page is cross-origin isolated).
import { expect } from 'chai';
import { bridgeFixture } from '../../test/helpers/bridge-fixture.ts';

describe('call_tool over shared memory in Chromium', () => {
  const f = bridgeFixture();
  after(() => f.runtime.dispose());

  it('uses the shared-memory transport and round-trips every JSON type', async () => {
    const r = await f.python.executePython({
      code: `
cases = [{"a": [1, {"b": None}]}, "ünï ✓", 0, -2**31, 2**53 - 1, 1.5, None, True, [], {}]
[call_tool("echo", {"value": c}) for c in cases] == cases`,
    });
    expect(r.ok && r.value, JSON.stringify(r)).to.equal(true);
    expect(f.runtime.getState().transport).to.equal('shared-memory');
  });

  it('raises ToolError for a failing tool, and moves a 10 MB result', async () => {
    const r = await f.python.executePython({
      code: `
try:
    call_tool("fail")
except ToolError as e:
    err = e.code
(err, len(call_tool("big_text", {"mb": 10})), len(call_tool("big_rows", {"n": 50000})))`,
    });
    expect(r.ok && r.value).to.deep.equal(['TOOL_FAILED', 10 * 1024 * 1024, 50000]);
  });

  it('refuses a tool that asks the busy runtime for a run, naming the cycle', async () => {
    // Browsers have no async context yet: the scope covers the handler's synchronous start.
    f.runner.registerTools([{ name: 'nested_run', description: 'n.', module: 'TestKit', pythonCallable: true, inputSchema: { type: 'object', properties: {} } }], async () => {
      const r = await f.runtime.execute('1 + 1');
      return r.ok ? r.value : `${r.error.type}: ${r.error.message}`;
    });
    const r = await f.python.executePython({ code: 'call_tool("nested_run")' });
    expect(r.ok && r.value, JSON.stringify(r)).to.match(/^CycleError: .*python -> call_tool\("nested_run"\) -> PyodideRuntime\.execute/);
  });

  it('keeps long non-ASCII text whole, surrogate pairs across encoding pieces included', async () => {
    // Chromium encodes long text into shared memory in pieces of 65,536 characters: emoji
    // straddle the piece boundaries here, and must not turn into U+FFFD.
    const r = await f.python.executePython({
      code: `
text = ("a" * 65535 + "😀" + "é" * 1000) * 5 + "✓" * 70000
back = call_tool("echo", {"value": text})
(back == text, len(back), back.count("\ufffd"))`,
    });
    expect(r.ok && r.value, JSON.stringify(r).slice(0, 500)).to.deep.equal([true, (65535 + 1 + 1000) * 5 + 70000, 0]);
  });
});
