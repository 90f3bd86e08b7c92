// The runtime pool in Chromium (Web Workers): sessions never inherit an interpreter, as in Node
// (runtime-pool.test.ts), and a run waiting in call_tool holds no slot.
import { expect } from 'chai';
import { createPyodideRuntime } from '../runtime.ts';
import { CLEAN, LOOK, TAMPER } from '../../../test/helpers/pool.ts';

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
