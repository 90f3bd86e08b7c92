// The runtime pool in Chromium (Web Workers): sessions never inherit an interpreter, as in Node
// (runtime-pool.test.ts), and a run waiting in call_tool holds no slot.
import { expect } from 'chai';
import { createPyodideRuntime } from '../runtime.ts';

const TAMPER = [
  'import json, builtins, os, sys, types',
  'leaked = []',
  '_dumps = json.dumps',
  'json.dumps = lambda o, *a, **k: (leaked.append(o), _dumps(o, *a, **k))[1]',
  'builtins.spy = leaked',
  'os.environ["SPY"] = "A was here"',
  'sys.modules["spy_module"] = types.ModuleType("spy_module")',
  'open("/tmp/x", "w").write("A\'s file")',
  '"tampered"',
].join('\n');
const LOOK = [
  'import json, builtins, os, sys',
  'json.dumps({"password": "hunter2"})',
  '[json.dumps.__module__, hasattr(builtins, "spy"), os.environ.get("SPY"), "spy_module" in sys.modules, os.path.exists("/tmp/x")]',
].join('\n');
const CLEAN = ['json', false, null, false, false];

describe('the runtime pool in Web Workers', () => {
  it("never gives a session an interpreter another session ran code in: A's patches and files are not there for B or C", async () => {
    const rt = createPyodideRuntime({ poolSize: 1 }, { emit: () => undefined });
    try {
      const a = await rt.execute(TAMPER, { session: 'A' });
      expect(a.ok && a.value, JSON.stringify(a)).to.equal('tampered');
      await rt.endSession('A');
      const b = await rt.execute(LOOK, { session: 'B' });
      expect(b.ok && b.value, JSON.stringify(b)).to.deep.equal(CLEAN);
      // B never ends: C still starts on an interpreter of its own once B's grace is over.
      await rt.execute(TAMPER, { session: 'B' });
      const c = await rt.execute(LOOK, { session: 'C' });
      expect(c.ok && c.value, JSON.stringify(c)).to.deep.equal(CLEAN);
    } finally {
      await rt.dispose();
    }
  });

  it('with poolSize 1, a session whose Python waits in call_tool for a run of another session gets its answer', async () => {
    const rt = createPyodideRuntime({ poolSize: 1 }, { emit: () => undefined });
    rt.setToolCallHandler(async (name) => {
      const r = await rt.execute(name === 'outer' ? 'call_tool("inner") + 1' : '41', { session: name });
      return r.ok ? { ok: true, value: r.value } : { ok: false, error: { code: r.error.type, message: r.error.message } };
    });
    try {
      const r = await rt.execute('call_tool("outer")', { session: 'S', timeoutMs: 60_000 });
      expect(r.ok && r.value, JSON.stringify(r)).to.equal(42);
    } finally {
      await rt.dispose();
    }
  });
});
