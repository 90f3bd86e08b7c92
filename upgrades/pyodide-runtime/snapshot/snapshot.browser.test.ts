// The start-up snapshot in Chromium: made by the first start of a page, kept in Cache Storage,
// restored by the next page load (simulated here by forgetting the page's in-memory copy).
import { expect } from 'chai';
import { createBrowserPlatform } from '../../../src/platform/browser/browser.ts';
import { createPyodideRuntime } from '../runtime.ts';
import { forgetMemorySnapshots, snapshotKey } from './snapshot-store.ts';

describe('start-up snapshot in Cache Storage', () => {
  const prefix = `armature-snapshot-test-${Math.random().toString(36).slice(2)}`;
  const cache = createBrowserPlatform({ dbPrefix: prefix }).openCache('pyodide-snapshot');
  after(async () => {
    await caches.delete(`${prefix}:pyodide-snapshot`);
  });

  async function startAsNewPage() {
    forgetMemorySnapshots();
    const progress: string[] = [];
    const rt = createPyodideRuntime({ snapshotCache: cache }, { emit: (type, payload) => type === 'python:progress' && progress.push(String((payload as { message?: string }).message ?? '')) });
    await rt.init();
    return { rt, progress };
  }

  it('the first load makes it and keeps it; a reload restores it and Python works', async () => {
    const first = await startAsNewPage();
    expect(first.rt.getState().fromSnapshot).to.equal(false);
    await first.rt.dispose();
    expect(await cache.keys()).to.deep.equal([await snapshotKey()]);
    const kept = await cache.get(await snapshotKey());
    expect(kept!.byteLength).to.be.greaterThan(10_000_000);

    const reload = await startAsNewPage();
    try {
      expect(reload.rt.getState().fromSnapshot).to.equal(true);
      expect(reload.progress).to.include('restoring Python from the start-up snapshot');
      const r = await reload.rt.execute('import sys\nprint("after a reload")\nsys.version_info[:2]');
      expect(r.ok && [r.value, r.stdout]).to.deep.equal([[3, 13], 'after a reload\n']);
      const loop = await reload.rt.execute('while True: pass', { timeoutMs: 300 });
      expect(!loop.ok && loop.error.type).to.equal('TimeoutError');
    } finally {
      await reload.rt.dispose();
    }
  });

  it('a broken cached snapshot falls back to a normal start and is replaced', async () => {
    await cache.put(await snapshotKey(), new Uint8Array(4096).fill(0x5a));
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (m: string) => void warnings.push(m);
    try {
      const broken = await startAsNewPage();
      expect(broken.rt.getState().fromSnapshot).to.equal(false);
      await broken.rt.dispose();
      expect(warnings.filter((w) => /start-up snapshot/.test(w))).to.have.length(1);
    } finally {
      console.warn = warn;
    }
    expect((await cache.get(await snapshotKey()))!.byteLength).to.be.greaterThan(10_000_000);
    const again = await startAsNewPage();
    expect(again.rt.getState().fromSnapshot).to.equal(true);
    await again.rt.dispose();
  });
});
