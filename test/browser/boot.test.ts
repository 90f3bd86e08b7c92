import { expect } from 'chai';
import { boot } from '../../src/index.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';

/** Loads `src` into `frame` and resolves with the fixture's report. */
function load(frame: HTMLIFrameElement, src: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no report from ${src}`)), 60_000);
    const onMessage = (e: MessageEvent) => {
      if (e.data?.fixture !== 'persist') return;
      clearTimeout(timer);
      removeEventListener('message', onMessage);
      resolve(e.data);
    };
    addEventListener('message', onMessage);
    frame.src = src;
  });
}

describe('boot in Chromium', () => {
  it('loads every module of the default persona and runs tools', async () => {
    const sys = await boot({ platform: createBrowserPlatform({ dbPrefix: `boot-${Date.now()}` }) });
    expect(sys.platform.kind).to.equal('browser');
    expect(sys.modules.filter((m) => m.state !== 'loaded').map((m) => m.error?.message)).to.deep.equal([]);
    // PyodideRuntime's early start is imported here too, and has nothing to start in a page.
    expect(sys.bus.history(['module:early-start-failed']).map((r) => r.payload.error.message)).to.deep.equal([]);
    const bps = await sys.tools.executeTool<{ blueprints: unknown[] }>('list_blueprints', {});
    expect(bps.ok && bps.value.blueprints.length).to.be.greaterThan(5);
    const bad = await sys.tools.executeTool('write_file', { path: '/etc/passwd', content: 'x' });
    expect(!bad.ok && bad.error.code).to.equal('INVALID_PATH');
    await sys.dispose();
  });

  it('keeps workspace files in IndexedDB across a page reload', async () => {
    const db = `reload-${Date.now()}`;
    const frame = document.createElement('iframe');
    document.body.append(frame);
    try {
      const first = await load(frame, `/test/browser/fixtures/persist-page.html?mode=write&db=${db}`);
      expect(first.error).to.equal(undefined);
      expect(first.ok).to.equal(true);
      // A fresh page: new JS realm, new IndexedDB connection; only what was persisted remains.
      const second = await load(frame, `/test/browser/fixtures/persist-page.html?mode=read&db=${db}&reload=1`);
      expect(second.error).to.equal(undefined);
      expect(second.read.value.content).to.equal('persisted ✓');
      expect(second.bin.value.content).to.equal('AP8=');
      expect(second.list.value.files.map((f: { path: string }) => f.path)).to.deep.equal(['b.bin', 'notes/a.txt']);
    } finally {
      frame.remove();
    }
  });
});
