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
});
