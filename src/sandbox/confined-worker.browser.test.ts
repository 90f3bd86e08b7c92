// Confined workers in Chromium: a module Web Worker locked down and served with its CSP, attacked as agent code would.
import { expect } from 'chai';
import { createConfinedWorker, type ConfinedWorker } from './index.ts';
import { attemptModule } from '../../test/helpers/escape-attempts.ts';
import { HANDLERS_MODULE } from '../../test/helpers/confined-handlers.ts';

const token = () => `t${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const hitsOf = async (t: string): Promise<string[]> => (await fetch(`/__armature/test-probe/hits/${t}`)).json();

/** Agent code that tries one thing and reports what happened instead of throwing. */
const ATTEMPT = attemptModule(`
  {
    document: () => document.title,
    window: () => window.location.href,
    indexedDB: () => indexedDB.open('armature-sandbox-probe'),
    indexedDBProto: () => proto('indexedDB').open('armature-sandbox-probe'),
    caches: () => caches.open('x'),
    storage: () => navigator.storage.getDirectory(),
    locks: () => navigator.locks.request('x', () => 1),
    fetch: () => fetch(url).then((r) => r.text()),
    fetchProto: () => proto('fetch').call(globalThis, url),
    xhr: () => { const x = new XMLHttpRequest(); x.open('GET', url, false); x.send(); return x.status; },
    webSocket: () => new WebSocket(url.replace(/^http/, 'ws')),
    eventSource: () => new EventSource(url),
    importUrl: () => import(url),
    importScripts: () => importScripts(url),
    worker: () => new Worker(url),
    process: () => process.pid,
    require: () => require('fs'),
    importFs: () => import('node:fs'),
    newFunction: () => new Function('return 1')(),
    eval: () => eval('1 + 1'),
    hostFunction: () => ctx.call_tool.constructor('return self')(),
    wasm: () => WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])),
    postMessage: () => postMessage({ type: 'result', id: 'k1', ok: true, value: 'forged' }),
    postMessageProto: () => proto('postMessage').call(globalThis, { type: 'result', id: 'k1', ok: true, value: 'forged' }),
    broadcast: () => new BroadcastChannel('armature-sandbox-probe').postMessage('forged'),
  }
`);

describe('a confined worker in Chromium', () => {
  let w: ConfinedWorker;
  let crossOrigin: string;
  const logs: string[] = [];
  before(async () => {
    crossOrigin = (await (await fetch('/__armature/test-probe/cors-origin')).json()).origin;
    w = await createConfinedWorker({ name: 'escapes', source: ATTEMPT, capabilities: { call_tool: async (name: unknown) => ({ called: name }) }, onLog: (e) => logs.push(e.text) });
  });
  after(() => w.terminate());

  const attempt = (code: string, url?: string) => w.call(['default'], [{ code, url }]) as Promise<{ escaped: boolean; error?: string; value?: string }>;

  for (const [code, why] of [
    ['document', /document is not defined/],
    ['window', /window is not defined/],
    ['process', /process is not defined/],
    ['require', /require is not defined/],
    ['importFs', /Failed to resolve module specifier|node:fs/],
    ['newFunction', /Content Security Policy|unsafe-eval/],
    ['eval', /Content Security Policy|unsafe-eval/],
    ['hostFunction', /Content Security Policy|unsafe-eval/],
    ['wasm', /Content Security Policy|wasm-unsafe-eval|WebAssembly/],
  ] as const) {
    it(`refuses ${code} with a clear error`, async () => {
      const r = await attempt(code);
      expect(r.escaped, `${code} escaped: ${r.value}`).to.equal(false);
      expect(r.error).to.match(why);
    });
  }

  it('reaches no storage: IndexedDB, Cache Storage, OPFS, locks; the page database is unchanged', async () => {
    const name = 'armature-sandbox-probe';
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => open.result.createObjectStore('s').put('page value', 'k');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    db.close();
    const before = (await indexedDB.databases()).map((d) => `${d.name}@${d.version}`).sort();
    for (const code of ['indexedDB', 'indexedDBProto', 'caches', 'storage', 'locks']) {
      const r = await attempt(code);
      expect(r.escaped, `${code} escaped: ${r.value}`).to.equal(false);
      expect(r.error).to.match(/is not defined|undefined|not a function|Cannot read properties/);
    }
    expect((await indexedDB.databases()).map((d) => `${d.name}@${d.version}`).sort()).to.deep.equal(before);
    const value = await new Promise((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => {
        const get = open.result.transaction('s').objectStore('s').get('k');
        get.onsuccess = () => {
          open.result.close();
          resolve(get.result);
        };
      };
      open.onerror = () => reject(open.error);
    });
    expect(value).to.equal('page value');
    expect(await caches.keys()).to.deep.equal([]);
  });

  it('sends no request by any route, same-origin or to a CORS-open server', async () => {
    for (const base of [location.origin, crossOrigin]) {
      const t = token();
      const url = `${base}/__armature/test-probe/hit/${t}`;
      for (const code of ['fetch', 'fetchProto', 'xhr', 'webSocket', 'eventSource', 'importUrl', 'importScripts', 'worker']) {
        const r = await attempt(code, url);
        expect(r.escaped, `${code} to ${base} escaped: ${r.value}`).to.equal(false);
      }
      expect((await attempt('fetch', url)).error).to.match(/may not reach .*allows no origin/);
      // Give a request that slipped out time to land before asking the server.
      await new Promise((r) => setTimeout(r, 200));
      expect(await hitsOf(t), `requests reached ${base}`).to.deep.equal([]);
    }
  });

  it('cannot message the page: no postMessage, no BroadcastChannel', async () => {
    const heard: unknown[] = [];
    const channel = new BroadcastChannel('armature-sandbox-probe');
    channel.onmessage = (e) => heard.push(e.data);
    try {
      for (const code of ['postMessage', 'postMessageProto', 'broadcast']) {
        const r = await attempt(code);
        expect(r.escaped, `${code} escaped: ${r.value}`).to.equal(false);
        expect(r.error).to.match(/is not defined|Cannot read properties of undefined/);
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(heard).to.deep.equal([]);
    } finally {
      channel.close();
    }
  });

  it('an allowed origin is fetched by the host under the policy', async () => {
    const t = token();
    const v = await createConfinedWorker({
      name: 'online',
      source: 'export default async ({ url }) => { const r = await fetch(url); return { status: r.status, body: await r.json() }; };',
      capabilities: {},
      network: [crossOrigin],
    });
    try {
      expect(await v.call(['default'], [{ url: `${crossOrigin}/__armature/test-probe/hit/${t}` }])).to.deep.equal({
        status: 200,
        body: { probe: 'cross-origin', path: `/__armature/test-probe/hit/${t}` },
      });
      expect(await hitsOf(t)).to.deep.equal([`GET /__armature/test-probe/hit/${t}`]);
      const other = token();
      await v.call(['default'], [{ url: `${location.origin}/__armature/test-probe/hit/${other}` }]).then(
        () => expect.fail('the page origin is not in the policy'),
        (e: Error) => expect(e.message).to.match(/may not reach/),
      );
      expect(await hitsOf(other)).to.deep.equal([]);
    } finally {
      await v.terminate();
    }
  });
});

describe('the confined worker\'s CSP on its own (no lockdown)', () => {
  it('refuses every request and eval-style code', async () => {
    const crossOrigin = (await (await fetch('/__armature/test-probe/cors-origin')).json()).origin;
    for (const base of [location.origin, crossOrigin]) {
      const t = token();
      const worker = new Worker('/__armature/test-probe/csp-worker.js');
      try {
        const out = await new Promise<Record<string, string>>((resolve) => {
          worker.onmessage = (e) => resolve(e.data);
          worker.postMessage({ url: `${base}/__armature/test-probe/hit/${t}` });
        });
        expect(Object.entries(out).filter(([, v]) => v !== 'refused'), `from ${base}`).to.deep.equal([]);
        expect(Object.keys(out).length).to.equal(10);
      } finally {
        worker.terminate();
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(await hitsOf(t), `requests reached ${base}`).to.deep.equal([]);
    }
  });
});

describe('faults in a confined worker in Chromium', () => {
  let w: ConfinedWorker;
  before(async () => {
    w = await createConfinedWorker({
      name: 'faults',
      source: `
        let calls = 0;
        export const count = () => ++calls;
        export const spin = () => { while (true) {} };
        export const heap = () => { const keep = []; for (;;) keep.push(new Array(1e5).fill(7)); };
        export const fail = () => { throw new TypeError('agent says no'); };
        export const big = (n) => 'x'.repeat(n);
        export const echo = (v) => v;
      `,
      capabilities: {},
      limits: { maxMessageBytes: 1 << 20 },
    });
  });
  after(() => w.terminate());

  it('an endless loop is terminated at the timeout and the worker is usable after', async () => {
    expect(await w.call(['count'], [])).to.equal(1);
    const e = await w.call(['spin'], [], { timeoutMs: 300 }).then(() => undefined, (x: Error & { code: string }) => x);
    expect(e?.code).to.equal('SANDBOX_TIMEOUT');
    expect(await w.call(['count'], [])).to.equal(1);
  });

  it('a memory bomb is terminated at the timeout (browsers cannot cap a worker\'s heap); the page and the worker live on', async () => {
    const e = await w.call(['heap'], [], { timeoutMs: 800 }).then(() => undefined, (x: Error & { code: string }) => x);
    expect(e?.code).to.equal('SANDBOX_TIMEOUT');
    expect(await w.call(['echo'], ['alive'])).to.equal('alive');
  });

  it('a throw rejects with the agent\'s message and stack', async () => {
    const e = await w.call(['fail'], []).then(() => undefined, (x: Error & { code: string }) => x);
    expect(e?.code).to.equal('AGENT_ERROR');
    expect(e?.name).to.equal('TypeError');
    expect(e?.message).to.equal('agent says no');
    expect(e?.stack).to.match(/blob:/);
  });

  it('results and arguments over the size limit fail with the size and the limit', async () => {
    const big = await w.call(['big'], [2 << 20]).then(() => undefined, (x: Error & { code: string }) => x);
    expect(big?.code).to.equal('MESSAGE_TOO_LARGE');
    expect(big?.message).to.match(/the value is at least \d+ bytes; the limit is 1048576/);
    const arg = await w.call(['echo'], ['y'.repeat(2 << 20)]).then(() => undefined, (x: Error & { code: string }) => x);
    expect(arg?.message).to.match(/the arguments is at least \d+ bytes; the limit is 1048576/);
    expect(await w.call(['big'], [3])).to.equal('xxx');
  });
});

describe('event handlers of a confined worker in Chromium', () => {
  it('a handler that loops is stopped within its limit, not restarted; handlers that finish stop nothing', async () => {
    const stops: string[] = [];
    const w = await createConfinedWorker({
      name: 'handlers',
      source: HANDLERS_MODULE,
      capabilities: {},
      limits: { handlerTimeoutMs: 1500 },
      onStop: (e) => stops.push(`${e.reason}: ${e.error.code}`),
    });
    await w.call(['init'], []);
    while (!w.listens('spin')) await new Promise((r) => setTimeout(r, 20));
    w.deliver('quick', {});
    w.deliver('later', {});
    while ((await w.call(['heard'], [])) !== 2) await new Promise((r) => setTimeout(r, 20));
    w.deliver('spin', {});
    while (!stops.length) await new Promise((r) => setTimeout(r, 50));
    expect(stops).to.deep.equal(['handler-timeout: SANDBOX_HANDLER_TIMEOUT']);
    const e = await w.call(['heard'], []).then(() => undefined, (x: Error & { code: string }) => x);
    expect(e?.code).to.equal('SANDBOX_HANDLER_TIMEOUT');
    expect(e?.message).to.match(/its handler of "spin" did not finish within 1500 ms; the worker was stopped/);
    await w.terminate();
  });
});
