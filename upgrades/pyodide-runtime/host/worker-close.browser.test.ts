// The host notices a browser worker that closes itself (Chromium): the run ends with a clear
// error at once rather than at its timeout, and a new worker takes its place.
import { expect } from 'chai';
import { createPyodideRuntime } from '../runtime.ts';
describe('a Web Worker that closes itself', () => {
  it('ends the run at once with a clear error, is replaced, and the next run works (twice over)', async () => {
    const rt = createPyodideRuntime(
      { snapshot: 'off', workerUrl: new URL('/test/fixtures/closing-worker.ts', location.href).href, defaultTimeoutMs: 600_000 },
      { emit: () => undefined },
    );
    try {
      await rt.init();
      for (let i = 0; i < 2; i++) {
        // The run's timeout is ten minutes: only noticing the close ends it before the suite's own timeout.
        const r = await rt.execute('close');
        expect(!r.ok && r.error.type, JSON.stringify(r)).to.equal('WorkerCrashed');
        expect(!r.ok && r.error.message).to.match(/closed/);
        expect(!r.ok && r.hint).to.match(/restarted.*globals/);
        const next = await rt.execute('1 + 1');
        expect(next.ok && next.value, JSON.stringify(next)).to.equal('answer to 1 + 1');
      }
    } finally {
      await rt.dispose();
    }
  });
});
