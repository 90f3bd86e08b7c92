// Python, attacked as an agent would attack it, in Chromium's confined Web Worker: each escape fails
// with a clear Python exception, and nothing outside happens (the page database is unchanged, the
// servers got no request, no message reached the page outside the runtime's private channel).
import { expect } from 'chai';
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';
import type { PyodideRuntimeApi } from '../../upgrades/pyodide-runtime/contract.ts';
import { REACH_SCAN } from '../helpers/python-reach-scan.ts';

const token = () => `t${Date.now()}${Math.random().toString(36).slice(2, 8)}`;
const hitsOf = async (t: string): Promise<string[]> => (await fetch(`/__armature/test-probe/hits/${t}`)).json();

/** Every Worker the page creates, and what each one posts on its global channel. */
const workers: Worker[] = [];
const globalMessages: unknown[] = [];
const RealWorker = globalThis.Worker;
class WatchedWorker extends RealWorker {
  constructor(url: string | URL, options?: WorkerOptions) {
    super(url, options);
    workers.push(this);
    // Only what the worker posted: the events the tests dispatch themselves are not trusted.
    this.addEventListener('message', (e) => e.isTrusted && globalMessages.push(e.data));
  }
}

/**
 * Calls `seen` with the id of every `execute` request the page posts on any MessagePort (the
 * runtime's private port among them), before it is posted; returns the undo.
 */
function watchExecuteIds(seen: (id: string) => void): () => void {
  const proto = MessagePort.prototype as unknown as { postMessage(this: MessagePort, ...args: unknown[]): void };
  const post = proto.postMessage;
  proto.postMessage = function (this: MessagePort, ...args: unknown[]) {
    const msg = args[0] as { type?: unknown; id?: unknown } | null;
    if (msg?.type === 'execute' && typeof msg.id === 'string') seen(msg.id);
    return post.apply(this, args);
  };
  return () => (proto.postMessage = post);
}

describe('Python cannot reach the page (Chromium)', () => {
  let rt: PyodideRuntimeApi;
  let crossOrigin: string;
  const events: { type: string; payload: { runId?: string } }[] = [];

  before(async () => {
    crossOrigin = (await (await fetch('/__armature/test-probe/cors-origin')).json()).origin;
    // Watched for the whole suite, so a worker the runtime starts after a restart is watched too.
    globalThis.Worker = WatchedWorker;
    rt = createPyodideRuntime({}, { emit: (type, payload) => events.push({ type, payload: payload as { runId?: string } }) });
    await rt.init();
  });
  after(async () => {
    globalThis.Worker = RealWorker;
    await rt.dispose();
  });

  async function refused(code: string, type: RegExp, message: RegExp) {
    const r = await rt.execute(code);
    expect(r.ok, `escaped: ${JSON.stringify(r.ok && r.value)}`).to.equal(false);
    if (!r.ok) {
      expect(r.error.type).to.match(type);
      expect(`${r.error.message}\n${r.error.traceback}`).to.match(message);
    }
  }

  it('the worker script is served with a CSP forbidding eval', async () => {
    const res = await fetch('/upgrades/pyodide-runtime/worker/main.ts');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).to.match(/script-src 'self' 'wasm-unsafe-eval'/);
    expect(csp).to.not.match(/'unsafe-eval'/);
  });

  it('js.process (fs, env, child_process, exit) does not exist', async () => {
    for (const code of ["js.process.getBuiltinModule('fs').readFileSync('/etc/hostname')", 'js.process.env', "js.process.getBuiltinModule('child_process')", 'js.process.exit()']) {
      await refused(`import js\n${code}`, /^AttributeError$/, /process/);
    }
  });

  it('import pyodide_js gives no file system, no module, no runPython; NODEFS cannot be mounted', async () => {
    for (const name of ['FS', '_module', 'runPython', 'loadPackage']) await refused(`import pyodide_js\npyodide_js.${name}`, /^AttributeError$/, new RegExp(name));
    await refused('import pyodide_js\npyodide_js.FS.mount(pyodide_js.FS.filesystems.NODEFS, {"root": "/"}, "/mnt")', /^AttributeError$/, /FS/);
  });

  it("run_js and any JavaScript function's .constructor evaluate nothing (the CSP)", async () => {
    await refused('from pyodide.code import run_js\nrun_js("self")', /ImportError|AttributeError/, /eval/);
    await refused('import js\njs.setTimeout.constructor("return self")()', /^JsException$/, /unsafe-eval|Content Security Policy|EvalError/);
  });

  it('js.indexedDB does not exist; the page database is unchanged', async () => {
    const name = `armature-python-probe-${token()}`;
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => open.result.createObjectStore('s').put('page value', 'k');
      open.onsuccess = () => (open.result.close(), resolve());
      open.onerror = () => reject(open.error);
    });
    const before = (await indexedDB.databases()).map((d) => `${d.name}@${d.version}`).sort();
    await refused(`import js\njs.indexedDB.deleteDatabase(${JSON.stringify(name)})`, /^AttributeError$/, /indexedDB/);
    await refused('import js\njs.caches.keys()', /^AttributeError$/, /caches/);
    expect((await indexedDB.databases()).map((d) => `${d.name}@${d.version}`).sort()).to.deep.equal(before);
  });

  it('js.fetch and pyfetch reach neither the page origin nor a CORS-open server; the servers got no request', async () => {
    for (const base of [location.origin, crossOrigin]) {
      const t = token();
      const url = `${base}/__armature/test-probe/hit/${t}`;
      await refused(`import js\nawait js.fetch("${url}")`, /JsException|TypeError/, /refused: the network policy allows no origin/);
      await refused(`from pyodide.http import pyfetch\nawait pyfetch("${url}")`, /JsException|TypeError|AbortError|OSError/, /refused: the network policy allows no origin/);
      await refused(`import js\nxhr = js.XMLHttpRequest.new()\nxhr.open("GET", "${url}", False)\nxhr.send()`, /^AttributeError$/, /XMLHttpRequest/);
      await new Promise((r) => setTimeout(r, 200));
      expect(await hitsOf(t), `requests reached ${base}`).to.deep.equal([]);
    }
  });

  it('js.postMessage cannot forge a protocol message; nothing arrives on the worker\'s global channel', async () => {
    const before = events.length;
    await refused("import js\njs.postMessage({'type': 'response', 'id': 'run-1', 'ok': True, 'value': 'forged'})", /^AttributeError$/, /postMessage/);
    await refused("import js\njs.BroadcastChannel.new('x').postMessage('forged')", /^AttributeError$/, /BroadcastChannel/);
    await new Promise((r) => setTimeout(r, 100));
    // The runtime talks over its private port: its Worker's global channel carries nothing at all.
    expect(globalMessages).to.deep.equal([]);
    const runIds = new Set(events.slice(before).map((e) => e.payload.runId).filter(Boolean));
    expect(runIds.size).to.equal(2);
  });

  it('forged answers change no run: Python reaches no posting target, and answers arriving on the worker\'s global channel for the real and guessed run ids are not taken, over 160 runs', async () => {
    // First defence: every way a Web Worker could post to the page, tried now and every 20 ms
    // after the run, reaches nothing.
    const attack = await rt.execute(`import js
from pyodide.ffi import to_js, create_proxy
targets = []
for name in ('postMessage', 'self', 'globalThis', 'parent', 'opener', 'BroadcastChannel', 'MessageChannel'):
    try:
        targets.append(getattr(js, name))
    except AttributeError:
        pass
forged = [to_js({'type': 'response', 'id': f'run-{k}', 'ok': True, 'value': {'value': 'forged'}}, dict_converter=js.Object.fromEntries) for k in range(1, 300)]
def spray(*_):
    for target in targets:
        for message in forged:
            try:
                (target.postMessage if hasattr(target, 'postMessage') else target)(message)
            except Exception:
                pass
spray()
js.setInterval(create_proxy(spray), 20)
len(targets)`);
    expect(attack.ok && attack.value, JSON.stringify(attack)).to.equal(0);

    // Second defence, tried as if the first had failed: answers forged for each run's real id (read
    // from the request as it is posted) and for the ids a sequence would give next arrive on every
    // Worker of the page as the worker's own postMessage would deliver them: when the request goes
    // out, just after, and every 20 ms, so during runs and between them.
    let forgeries = 0;
    let ids: string[] = [];
    const forge = () => {
      for (const worker of workers) {
        for (const id of ids) {
          worker.dispatchEvent(new MessageEvent('message', { data: { type: 'response', id, ok: true, value: { value: `forged answer for ${id}`, memoryBytes: 0 } } }));
          forgeries++;
        }
      }
    };
    let runs = 0;
    const unwatch = watchExecuteIds((id) => {
      runs++;
      forge();
      const n = Number(/^run-(\d+)/.exec(id)?.[1] ?? 0);
      ids = [id, ...Array.from({ length: 20 }, (_, k) => `run-${n + k + 1}`)];
      forge();
      setTimeout(forge, 0);
    });
    const timer = setInterval(forge, 20);
    try {
      for (let i = 0; i < 160; i++) {
        const r = await rt.execute(`print(${i})\n${i} * 3`);
        expect(r.ok && [r.value, r.stdout], `run ${i}: ${JSON.stringify(r)}`).to.deep.equal([i * 3, `${i}\n`]);
      }
    } finally {
      clearInterval(timer);
      unwatch();
    }
    // The forgery was made: each run's real id reached every Worker of the page, the runtime's among them.
    expect(runs).to.equal(160);
    expect(workers.length).to.be.greaterThan(0);
    expect(forgeries).to.be.at.least(160 * 21 * workers.length);
    expect(globalMessages).to.deep.equal([]);
  });

  it('js.close() does not exist: the next run answers at once, not at its timeout', async () => {
    for (const code of ['js.close()', 'js.self.close()', 'js.globalThis.close()']) await refused(`import js\n${code}`, /^AttributeError$/, /close|self|globalThis/);
    const r = await rt.execute('1 + 1', { timeoutMs: 5000 });
    expect(r.ok && r.value, JSON.stringify(r)).to.equal(2);
  });

  it('os._exit twice in a row: each restarts the worker and says globals were lost; runs work after', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await rt.execute(`import os\nos._exit(${i + 1})`);
      expect(!r.ok && r.error.type, JSON.stringify(r)).to.equal('SystemExit');
      expect(!r.ok && r.hint).to.match(/restarted.*globals/);
    }
    const r = await rt.execute('1 + 1', { timeoutMs: 5000 });
    expect(r.ok && r.value, JSON.stringify(r)).to.equal(2);
  });

  it('walking every JavaScript object Python can reach finds only the policed fetch', async () => {
    const r = await rt.execute(REACH_SCAN, { timeoutMs: 120_000 });
    expect(r.ok, JSON.stringify(r)).to.equal(true);
    const [roots, found] = r.ok ? (r.value as [number, string[]]) : [0, []];
    expect(roots).to.be.greaterThan(0);
    expect(found.filter((f) => !/(^|\.)fetch$/.test(f))).to.deep.equal([]);
  });
});

describe('a network policy in Chromium', () => {
  it('an allowed origin is reached through the page, and nothing else', async () => {
    const crossOrigin = (await (await fetch('/__armature/test-probe/cors-origin')).json()).origin;
    const rt = createPyodideRuntime({ network: [crossOrigin] }, { emit: () => undefined });
    try {
      const t = token();
      const ok = await rt.execute(`from pyodide.http import pyfetch\nr = await pyfetch("${crossOrigin}/__armature/test-probe/hit/${t}")\n(r.status, await r.json())`);
      expect(ok.ok && ok.value, JSON.stringify(ok)).to.deep.equal([200, { probe: 'cross-origin', path: `/__armature/test-probe/hit/${t}` }]);
      expect(await hitsOf(t)).to.deep.equal([`GET /__armature/test-probe/hit/${t}`]);
      const other = token();
      const no = await rt.execute(`import js\nawait js.fetch("${location.origin}/__armature/test-probe/hit/${other}")`);
      expect(!no.ok && no.error.message).to.match(/refused: the network policy allows http/);
      expect(await hitsOf(other)).to.deep.equal([]);
    } finally {
      await rt.dispose();
    }
  });
});
