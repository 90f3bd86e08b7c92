// Python, attacked as an agent would attack it, in Node's default `process` isolation: each escape
// fails with a clear Python exception, and nothing outside happens (no file read or written, no
// process started, no request received, no event forged).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPyodideRuntime } from '../../upgrades/pyodide-runtime/runtime.ts';
import type { PyodideRuntimeApi } from '../../upgrades/pyodide-runtime/contract.ts';
import { startProbe as probe } from '../helpers/probe-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { REACH_SCAN } from '../helpers/python-reach-scan.ts';
import { pythonChildPids as childPids } from '../helpers/python-children.ts';
import { commandLine } from '../../src/platform/linux-proc.ts';

describe('Python cannot reach the host (Node, process isolation)', () => {
  let rt: PyodideRuntimeApi;
  const events: { type: string; payload: { runId?: string } }[] = [];
  let server: Awaited<ReturnType<typeof probe>>;
  const dir = tempDir('escape');
  const secretFile = join(dir, 'secret.txt');
  const marker = join(dir, 'marker');
  writeFileSync(secretFile, 'host secret 4f9c');
  process.env.ARMATURE_ESCAPE_SECRET = 'env secret 71ab';

  before(async () => {
    server = await probe();
    rt = createPyodideRuntime({}, { emit: (type, payload) => events.push({ type, payload: payload as { runId?: string } }) });
    await rt.init();
  });
  after(async () => {
    await rt.dispose();
    await server.close();
  });

  /** Runs `code`; the escape must fail with `type` and a message matching `message`. */
  async function refused(code: string, type: string | RegExp, message: RegExp) {
    const r = await rt.execute(code);
    assert.equal(r.ok, false, `escaped: ${JSON.stringify(r.ok && r.value)}`);
    if (!r.ok) {
      assert.match(r.error.type, typeof type === 'string' ? new RegExp(`^${type}$`) : type, JSON.stringify(r.error));
      assert.match(`${r.error.message}\n${r.error.traceback}`, message, JSON.stringify(r.error));
    }
    return r;
  }

  test("js.process.getBuiltinModule('fs').readFileSync(...) fails; the file is not read", async () => {
    const r = await refused(`import js\njs.process.getBuiltinModule('fs').readFileSync(${JSON.stringify(secretFile)}, 'utf8')`, 'AttributeError', /process/);
    assert.ok(!JSON.stringify(r).includes('host secret'));
    await refused(`open(${JSON.stringify(secretFile)}).read()`, 'FileNotFoundError', /No such file/);
  });

  test('js.process.env fails, and nothing of the host environment is in Python or in the child', async () => {
    await refused('import js\njs.process.env', 'AttributeError', /process/);
    const env = await rt.execute('import os\ndict(os.environ)');
    assert.ok(env.ok && !JSON.stringify(env.value).includes('env secret'), JSON.stringify(env));
    assert.ok(!JSON.stringify(env.ok && env.value).includes(tmpdir()), `no host path in Python's environment: ${JSON.stringify(env)}`);
    for (const pid of childPids()) assert.equal(readFileSync(`/proc/${pid}/environ`, 'utf8'), '', 'the child has an empty environment');
  });

  test('child_process fails; no process is started', async () => {
    await refused(`import js\njs.process.getBuiltinModule('child_process').execSync('touch ${marker}')`, 'AttributeError', /process/);
    assert.equal(existsSync(marker), false);
  });

  test('js.process.exit() fails; the runtime is not restarted', async () => {
    const restarts = rt.getState().restarts;
    await refused('import js\njs.process.exit(3)', 'AttributeError', /process/);
    const after = await rt.execute('1 + 1');
    assert.equal(after.ok && after.value, 2);
    assert.equal(rt.getState().restarts, restarts);
  });

  test('import pyodide_js gives no file system, no module, no runPython', async () => {
    for (const name of ['FS', '_module', 'runPython', 'runPythonAsync', 'loadPackage', 'registerJsModule', 'mountNodeFS']) {
      await refused(`import pyodide_js\npyodide_js.${name}`, 'AttributeError', new RegExp(name));
    }
  });

  test('run_js and any JavaScript function\'s .constructor evaluate nothing', async () => {
    await refused('from pyodide.code import run_js\nrun_js("globalThis.process")', 'ImportError', /cannot import name 'eval' from 'js'/);
    await refused('import js\njs.setTimeout.constructor("return globalThis.process")()', 'JsException', /Code generation from strings disallowed/);
    await refused('import js\njs.Object.constructor.constructor("return 1")()', 'JsException', /Code generation from strings disallowed/);
  });

  test('NODEFS cannot be mounted; Python sees only its own file system', async () => {
    await refused('import pyodide_js\npyodide_js.FS.mount(pyodide_js.FS.filesystems.NODEFS, {"root": "/"}, "/mnt")', 'AttributeError', /FS/);
    // Emscripten's own in-memory tree: none of the host's folders, not this test's files.
    const listing = await rt.execute(`import os\n(sorted(os.listdir("/")), os.path.exists(${JSON.stringify(dir)}))`);
    assert.ok(listing.ok, JSON.stringify(listing));
    const [names, hostDir] = listing.ok ? (listing.value as [string[], boolean]) : [[], true];
    assert.ok(!names.some((n) => ['etc', 'usr', 'var', 'root'].includes(n)), names.join(' '));
    assert.equal(hostDir, false);
  });

  test('js.indexedDB fails', async () => {
    await refused('import js\njs.indexedDB.open("armature:workspace")', 'AttributeError', /indexedDB/);
  });

  test('js.fetch and pyfetch reach neither a same-host server nor a CORS-open one; the servers got no request', async () => {
    for (const code of [`import js\nawait js.fetch("${server.origin}/same")`, `from pyodide.http import pyfetch\nawait pyfetch("${server.origin}/cors")`]) {
      await refused(code, /JsException|TypeError|OSError|AbortError/, /refused: the network policy allows no origin/);
    }
    assert.deepEqual(server.hits, []);
  });

  test("the fetch classes Python is given work (read when first asked for), and the confinement leaves nothing in __main__", async () => {
    const r = await rt.execute(
      'import js, __main__\n' +
        'h = js.Headers.new()\nh.append("x-armature", "1")\n' +
        'req = js.Request.new("https://example.invalid/a?b=1", js.Object.fromEntries([["method", "POST"]]))\n' +
        '[h.get("x-armature"), req.method, req.url, type(js.Response.new("hi").status).__name__, sorted(k for k in vars(__main__) if k in ("_old", "_new", "_swap", "_mod", "_vars", "_key", "_name"))]',
    );
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.ok && r.value, ['1', 'POST', 'https://example.invalid/a?b=1', 'int', []]);
  });

  test('js.postMessage cannot forge a protocol message; no event claims another run', async () => {
    const before = events.length;
    await refused("import js\njs.postMessage({'type': 'response', 'id': 'run-1', 'ok': True, 'value': 'forged'})", 'AttributeError', /postMessage/);
    const runIds = new Set(events.slice(before).map((e) => e.payload.runId).filter(Boolean));
    assert.equal(runIds.size, 1, `events of one run only: ${[...runIds].join(', ')}`);
  });

  test('walking every JavaScript object Python can reach finds no process, file system, network or eval', async () => {
    const r = await rt.execute(REACH_SCAN, { timeoutMs: 120_000 });
    assert.ok(r.ok, JSON.stringify(r));
    const [roots, found] = r.ok ? (r.value as [number, string[]]) : [0, []];
    assert.ok(roots > 0);
    // The policy fetch is the one network door, and it is meant to be there.
    const unexpected = found.filter((f) => !/(^|\.)fetch$/.test(f));
    assert.deepEqual(unexpected, [], `reachable: ${unexpected.join(', ')}`);
  });
});

test('a persona that allows an origin reaches it through the host, and nothing else', async () => {
  const allowed = await probe();
  const other = await probe();
  const rt = createPyodideRuntime({ network: [allowed.origin] }, { emit: () => undefined });
  try {
    const ok = await rt.execute(`from pyodide.http import pyfetch\nr = await pyfetch("${allowed.origin}/data?x=1")\n(r.status, await r.json())`);
    assert.deepEqual(ok.ok && ok.value, [200, { probe: true, path: '/data?x=1' }], JSON.stringify(ok));
    assert.deepEqual(allowed.hits, ['GET /data?x=1']);
    const no = await rt.execute(`import js\nawait js.fetch("${other.origin}/x")`);
    assert.match(!no.ok ? no.error.message : '', /refused: the network policy allows http:\/\/127\.0\.0\.1/);
    assert.deepEqual(other.hits, []);
  } finally {
    await rt.dispose();
    await Promise.all([allowed.close(), other.close()]);
  }
});

test('the child runs under the permission model: its command line and what it may read and write', async () => {
  const packageCacheDir = join(tempDir('escape-packages'), 'pyodide-packages');
  const rt = createPyodideRuntime({ packageCacheDir }, { emit: () => undefined });
  try {
    await rt.init();
    const pids = childPids();
    assert.ok(pids.length >= 1);
    const argv = commandLine(pids.at(-1)!)!;
    assert.ok(argv.includes('--experimental-permission') || argv.includes('--permission'), argv.join(' '));
    assert.ok(argv.includes('--disallow-code-generation-from-strings'));
    assert.ok(argv.includes('--allow-worker'));
    assert.ok(!argv.some((a) => a === '--allow-child-process' || a === '--allow-addons'), argv.join(' '));
    // One folder may be written: the child's own package downloads, never the unconfined runtime's.
    const writes = argv.filter((a) => a.startsWith('--allow-fs-write')).map((a) => a.slice('--allow-fs-write='.length));
    assert.deepEqual(writes, [`${join(realpathSync(dirname(packageCacheDir)), 'pyodide-packages-confined')}/*`], argv.join(' '));
    const reads = argv.filter((a) => a.startsWith('--allow-fs-read=')).map((a) => a.slice('--allow-fs-read='.length));
    assert.ok(reads.every((p) => /pyodide|armature-python-|python-(child|worker)\.mjs|dist\/node/.test(p)), reads.join(' '));
    assert.ok(readdirSync(`/proc/${pids.at(-1)}/task`).length > 1, 'Python runs in a worker thread of the child');
  } finally {
    await rt.dispose();
  }
});
