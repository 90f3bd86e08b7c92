// Confined workers in Node: a real child process under the permission model, attacked as agent code would.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createConfinedWorker, type ConfinedWorker } from './index.ts';
import { childPids, commandLine } from '../platform/proc/linux-proc.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { attemptModule } from '../../test/helpers/escape-attempts.ts';
import { HANDLERS_MODULE } from '../../test/helpers/confined-handlers.ts';
import { until } from '../../test/helpers/until.ts';

/** A local HTTP server that counts the requests it gets; `redirect` sends every request elsewhere. */
async function probeServer(redirect?: string): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (redirect) {
      res.writeHead(302, { location: redirect });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end(JSON.stringify({ hello: 'from the server', path: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise((r) => server.close(() => r())) };
}

/** Agent code that tries one thing and reports what happened instead of throwing. */
const ATTEMPT = attemptModule(`
  {
    process: () => process.pid,
    require: () => require('fs'),
    importFs: () => import('node:fs'),
    importChild: () => import('child_process'),
    newFunction: () => new Function('return 1')(),
    eval: () => eval('1 + 1'),
    hostFunction: () => ctx.call_tool.constructor('return process')(),
    realmFunction: () => ({}).constructor.constructor('return this')(),
    dom: () => document.title,
    window: () => window.location.href,
    indexedDB: () => indexedDB.open('x'),
    postMessage: () => postMessage({ type: 'result', id: 'k1', ok: true, value: 'forged' }),
    processSend: () => globalThis.process.send({}),
    wasm: () => WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])),
    stackFrames: () => {
      Error.prepareStackTrace = (_e, frames) => frames.map((f) => [typeof f.getThis(), typeof f.getFunction()]);
      let found;
      ctx.on('x', () => {});
      try { null.x; } catch (e) { found = e.stack; }
      const leaked = JSON.stringify(found).includes('object') || JSON.stringify(found).includes('function');
      if (leaked) return 'a frame revealed a host object';
      throw new Error('no frame revealed anything');
    },
  }
`);

describe('a confined worker in Node', () => {
  let w: ConfinedWorker;
  const logs: string[] = [];
  before(async () => {
    w = await createConfinedWorker({
      name: 'escapes',
      source: ATTEMPT,
      capabilities: { call_tool: async (name: unknown) => ({ called: name }) },
      onLog: (e) => logs.push(e.text),
    });
  });
  after(() => w.terminate());

  for (const [code, why] of [
    ['process', /process is not defined/],
    ['require', /require is not defined/],
    ['importFs', /import\(\) "node:fs" refused/],
    ['importChild', /import\(\) "child_process" refused/],
    ['newFunction', /Code generation from strings disallowed/],
    ['eval', /Code generation from strings disallowed/],
    ['hostFunction', /Code generation from strings disallowed/],
    ['realmFunction', /Code generation from strings disallowed/],
    ['dom', /document is not defined/],
    ['window', /window is not defined/],
    ['indexedDB', /indexedDB is not defined/],
    ['postMessage', /postMessage is not defined/],
    ['processSend', /Cannot read properties of undefined/],
    ['wasm', /WebAssembly|Wasm code generation disallowed/],
    ['stackFrames', /no frame revealed anything/],
  ] as const) {
    test(`refuses ${code} with a clear error`, async () => {
      const r = (await w.call(['default'], [{ code }])) as { escaped: boolean; error?: string; value?: string };
      assert.equal(r.escaped, false, `${code} escaped: ${r.value}`);
      assert.match(r.error!, why);
    });
  }

  test('runs in a child process with the permission model, an empty environment and a heap cap', async () => {
    // The transport's pid is internal: find the child among this process's children.
    const ours = childPids().filter((pid) => commandLine(pid)?.some((arg) => arg.includes('node-child.mjs')));
    assert.ok(ours.length >= 1, 'a confined child is running');
    for (const pid of ours) {
      const argv = commandLine(pid)!;
      assert.ok(argv.some((a) => a === '--experimental-permission' || a === '--permission'), argv.join(' '));
      assert.ok(argv.includes('--disallow-code-generation-from-strings'));
      assert.ok(argv.some((a) => a.startsWith('--max-old-space-size=')));
      assert.ok(!argv.some((a) => a.startsWith('--allow-fs-write') || a === '--allow-child-process' || a === '--allow-worker' || a === '--allow-addons'));
      assert.equal(readFileSync(`/proc/${pid}/environ`, 'utf8'), '', 'nothing from the host environment');
    }
  });

  test('gets only its capabilities: each call crosses to the host', async () => {
    const v = await createConfinedWorker({
      name: 'caps',
      source: 'export default async (args, ctx) => ({ keys: Object.keys(ctx).sort(), got: await ctx.call_tool("list_files", args) });',
      capabilities: { call_tool: async (name: unknown, args: unknown) => ({ name, args }) },
    });
    try {
      assert.deepEqual(await v.call(['default'], [{ prefix: 'a' }]), { keys: ['call_tool', 'on'], got: { name: 'list_files', args: { prefix: 'a' } } });
    } finally {
      await v.terminate();
    }
  });
});

describe('confined worker calls', () => {
  test('default tool, upgrade shape, describe, events and errors', async () => {
    const w = await createConfinedWorker({
      name: 'upgrade',
      source: `
        let ticks = [];
        export default {
          init(ctx) {
            ctx.on('tick', (p) => { ticks.push(p.n); ctx.status({ ticks: ticks.length }); });
            ctx.on('gone', () => ticks.push('gone'))();
            return 'ready';
          },
          tools: {
            count: (args) => ({ ticks, args }),
            fail: async () => { const e = new RangeError('out of range: 7'); e.code = 'MY_CODE'; throw e; },
            text: () => { throw 'a plain string'; },
          },
          dispose() { ticks = []; },
        };
      `,
      capabilities: { status: () => undefined },
    });
    try {
      assert.deepEqual(await w.describe(), { exports: ['default'], members: ['init', 'tools', 'dispose'], tools: ['count', 'fail', 'text'] });
      assert.equal(await w.call(['init'], []), 'ready');
      assert.deepEqual([w.listens('tick'), w.listens('gone'), w.listens('other')], [true, false, false], 'only names with a handler are listened to');
      w.deliver('tick', { n: 1 });
      w.deliver('gone', { n: 0 });
      w.deliver('tick', { n: 2 });
      w.deliver('other', { n: 3 });
      let seen: unknown;
      for (let i = 0; i < 50; i++) {
        seen = await w.call(['tools', 'count'], [{ q: 1 }]);
        if ((seen as { ticks: number[] }).ticks.length === 2) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(seen, { ticks: [1, 2], args: { q: 1 } });
      await assert.rejects(w.call(['tools', 'fail'], [{}]), (e: Error & { code: string; agentCode?: string }) => {
        assert.equal(e.code, 'AGENT_ERROR');
        assert.equal(e.name, 'RangeError');
        assert.equal(e.message, 'out of range: 7');
        assert.equal(e.agentCode, 'MY_CODE');
        assert.match(e.stack!, /agent:upgrade:\d+/, 'the agent\'s own stack');
        return true;
      });
      await assert.rejects(w.call(['tools', 'text'], [{}]), /threw a string: a plain string/);
      await assert.rejects(w.call(['tools', 'missing'], [{}]), /no export tools\.missing/);
      await assert.rejects(w.call(['tools', 'count'], [{}], { timeoutMs: 2 ** 31 }), /timeoutMs 2147483648 is out of range: it must be 1 to 2147483647 ms/);
      await assert.rejects(w.call(['tools'], [{}]), /tools is a object, not a function/);
    } finally {
      await w.terminate();
    }
  });

  test('a module that does not load is reported with the agent\'s error', async () => {
    await assert.rejects(createConfinedWorker({ name: 'syntax', source: 'export default (', capabilities: {} }), (e: Error & { code: string }) => {
      assert.equal(e.code, 'SANDBOX_LOAD_FAILED');
      assert.match(e.message, /SyntaxError/);
      return true;
    });
    await assert.rejects(createConfinedWorker({ name: 'imports', source: 'import fs from "node:fs"; export default () => fs;', capabilities: {} }), (e: Error & { code: string; hint?: string }) => {
      assert.equal(e.code, 'SANDBOX_LOAD_FAILED');
      assert.match(e.message, /import "node:fs" refused/);
      assert.match(e.hint!, /capabilities/);
      return true;
    });
    await assert.rejects(createConfinedWorker({ name: 'thrower', source: 'throw new Error("no");', capabilities: {} }), /module failed to load: Error: no/);
    await assert.rejects(
      createConfinedWorker({ name: 'top-loop', source: 'while (true) {}', capabilities: {}, limits: { callTimeoutMs: 500 } }),
      (e: Error & { code: string }) => e.code === 'SANDBOX_TIMEOUT' && /did not finish loading within 500 ms/.test(e.message),
    );
  });

  test('bad options are refused with the offending value', async () => {
    await assert.rejects(createConfinedWorker({ name: 'x', source: '', capabilities: { 'bad name': () => 1 } }), /capability name "bad name" is not usable/);
    await assert.rejects(createConfinedWorker({ name: 'x', source: '', capabilities: { on: () => 1 } }), (e: Error & { hint?: string }) => /capability name "on"/.test(e.message) && /"on" is reserved/.test(e.hint!));
    await assert.rejects(createConfinedWorker({ name: 'x', source: '', capabilities: {}, network: ['https://a.example/path'] }), /has more than an origin/);
    await assert.rejects(createConfinedWorker({ name: 'x', source: '', capabilities: {}, network: 'all' as never }), /network must be "none" or a list of origins/);
    await assert.rejects(createConfinedWorker({ name: 'x', source: '', capabilities: {}, limits: { callTimeoutMs: -1 } }), /limits.callTimeoutMs must be a positive number/);
    // A timer cannot hold more: it would fire at once and time every call out.
    await assert.rejects(createConfinedWorker({ name: 'x', source: '', capabilities: {}, limits: { callTimeoutMs: 2 ** 31 } }), /limits\.callTimeoutMs 2147483648 is out of range: it must be 1 to 2147483647 ms/);
  });
});

describe('faults in a confined worker', () => {
  let w: ConfinedWorker;
  const restarts: string[] = [];
  before(async () => {
    w = await createConfinedWorker({
      name: 'faults',
      source: `
        let calls = 0;
        export const count = () => ++calls;
        export const spin = () => { while (true) {} };
        export const heap = () => { const keep = []; for (;;) keep.push(new Array(1e6).fill(7)); };
        export const buffers = () => { const keep = []; for (;;) keep.push(new Uint8Array(32 << 20).fill(1)); };
        export const recurse = () => { const f = (n) => f(n + 1) + 1; return f(0); };
        export const big = (n) => 'x'.repeat(n);
        export const echo = (v) => v;
        export const fn = () => () => 1;
        export const slow = (ms) => new Promise((r) => setTimeout(() => r('done'), ms));
      `,
      capabilities: {},
      limits: { memoryMb: 64, callTimeoutMs: 3000, maxMessageBytes: 1 << 20 },
      onRestart: (e) => restarts.push(e.reason),
    });
  });
  after(() => w.terminate());

  test('an endless loop is stopped at the timeout, and the worker is usable after (state reloaded)', async () => {
    assert.equal(await w.call(['count'], []), 1);
    assert.equal(await w.call(['count'], []), 2);
    await assert.rejects(w.call(['spin'], [], { timeoutMs: 300 }), (e: Error & { code: string }) => {
      assert.equal(e.code, 'SANDBOX_TIMEOUT');
      assert.match(e.message, /spin did not finish within 300 ms; the worker was restarted/);
      return true;
    });
    assert.equal(await w.call(['count'], []), 1, 'the module was loaded again');
    assert.ok(restarts.includes('timeout'));
  });

  test('a heap bomb ends the child, not the host; the worker is usable after', async () => {
    await assert.rejects(w.call(['heap'], [], { timeoutMs: 20_000 }), (e: Error & { code: string }) => {
      assert.equal(e.code, 'SANDBOX_CRASHED');
      assert.match(e.message, /ran out of memory/);
      return true;
    });
    assert.equal(await w.call(['echo'], ['alive']), 'alive');
  });

  test('a buffer bomb (outside the heap) is stopped by the resident-memory watch', async () => {
    await assert.rejects(w.call(['buffers'], [], { timeoutMs: 20_000 }), /ran out of memory: its resident memory reached/);
    assert.equal(await w.call(['echo'], ['alive']), 'alive');
    assert.ok(restarts.includes('memory'));
  });

  test('deep recursion is a RangeError of the agent, the worker stays up', async () => {
    await assert.rejects(w.call(['recurse'], []), (e: Error) => e.name === 'RangeError' && /call stack/.test(e.message));
    assert.equal(await w.call(['echo'], [7]), 7);
  });

  test('results and arguments over the size limit fail with the size and the limit', async () => {
    await assert.rejects(w.call(['big'], [2 << 20]), (e: Error & { code: string }) => {
      assert.equal(e.code, 'MESSAGE_TOO_LARGE');
      assert.match(e.message, /big: the result is too large to send: the value is \d+ bytes; the limit is 1048576/);
      return true;
    });
    await assert.rejects(w.call(['echo'], ['y'.repeat(2 << 20)]), /the arguments is \d+ bytes; the limit is 1048576/);
    assert.equal(await w.call(['big'], [10]), 'xxxxxxxxxx');
  });

  test('a result that cannot be cloned is an error naming what to return', async () => {
    await assert.rejects(w.call(['fn'], []), /could not be sent to the host .*return plain data/);
  });

  test('an aborted call rejects at once; concurrent calls each get their own answer', async () => {
    const ctl = new AbortController();
    const slow = w.call(['slow'], [300], { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 30);
    await assert.rejects(slow, (e: Error & { code: string }) => e.code === 'SANDBOX_ABORTED');
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => w.call(['echo'], [i])));
    assert.deepEqual(all, Array.from({ length: 20 }, (_, i) => i));
  });

  test('after terminate, calls fail clearly', async () => {
    const v = await createConfinedWorker({ name: 'short', source: 'export default () => 1;', capabilities: {} });
    await v.terminate();
    await assert.rejects(v.call(['default'], []), (e: Error & { code: string }) => e.code === 'SANDBOX_TERMINATED');
  });
});

describe('the network policy of a confined worker', () => {
  let allowed: Awaited<ReturnType<typeof probeServer>>;
  let other: Awaited<ReturnType<typeof probeServer>>;
  let redirector: Awaited<ReturnType<typeof probeServer>>;
  before(async () => {
    allowed = await probeServer();
    other = await probeServer();
    redirector = await probeServer(`${'http://127.0.0.1:'}${new URL(other.origin).port}/secret`);
  });
  after(async () => {
    await Promise.all([allowed.close(), other.close(), redirector.close()]);
  });

  const FETCHER = `export default async ({ url }) => {
    try { const r = await fetch(url); return { ok: r.ok, status: r.status, body: await r.json() }; }
    catch (e) { return { error: e.message, code: e.code }; }
  };`;

  test('with no network, fetch is refused and no request leaves', async () => {
    const w = await createConfinedWorker({ name: 'offline', source: FETCHER, capabilities: {} });
    try {
      const r = (await w.call(['default'], [{ url: `${other.origin}/x` }])) as { error: string; code: string };
      assert.equal(r.code, 'NETWORK_DENIED');
      assert.match(r.error, /may not reach .*allows no origin/);
      assert.deepEqual(other.hits, [], 'the server got no request');
    } finally {
      await w.terminate();
    }
  });

  test('an allowed origin is reached through the host; others and redirects to others are not', async () => {
    const w = await createConfinedWorker({ name: 'online', source: FETCHER, capabilities: {}, network: [allowed.origin, redirector.origin] });
    try {
      assert.deepEqual(await w.call(['default'], [{ url: `${allowed.origin}/data?q=1` }]), { ok: true, status: 200, body: { hello: 'from the server', path: '/data?q=1' } });
      assert.deepEqual(allowed.hits, ['/data?q=1']);
      const denied = (await w.call(['default'], [{ url: `${other.origin}/x` }])) as { code: string };
      assert.equal(denied.code, 'NETWORK_DENIED');
      const redirected = (await w.call(['default'], [{ url: `${redirector.origin}/go` }])) as { code: string; error: string };
      assert.equal(redirected.code, 'NETWORK_DENIED');
      assert.match(redirected.error, /may not reach .*\/secret/);
      assert.deepEqual(redirector.hits, ['/go']);
      assert.deepEqual(other.hits, [], 'neither a direct request nor a redirect reached the other origin');
    } finally {
      await w.terminate();
    }
  });
});

test('the permission layer alone refuses file reads, writes, processes and workers', async () => {
  // Defence in depth: code that did reach the child's main realm (where process exists) is still
  // confined by Node's permission model.
  const { confinementFlags } = await import('./node-permission.ts');
  const { spawnSync } = await import('node:child_process');
  const dir = tempDir('perm');
  const script = join(dir, 'probe.mjs');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    script,
    `import fs from 'node:fs'; import cp from 'node:child_process'; import { Worker } from 'node:worker_threads';
     const out = {};
     const attempt = (k, f) => { try { f(); out[k] = 'allowed'; } catch (e) { out[k] = e.code || e.message; } };
     attempt('read', () => fs.readFileSync('/etc/hostname'));
     attempt('write', () => fs.writeFileSync(${JSON.stringify(join(dir, 'written'))}, 'x'));
     attempt('spawn', () => cp.spawnSync('/bin/true'));
     attempt('worker', () => new Worker(${JSON.stringify(script)}));
     attempt('env', () => { if (Object.keys(process.env).length) throw new Error('env not empty'); });
     console.log(JSON.stringify(out));`,
  );
  const r = spawnSync(process.execPath, [...confinementFlags({ read: [script], memoryMb: 64 }), script], { env: {}, encoding: 'utf8' });
  const out = JSON.parse(r.stdout.trim());
  assert.deepEqual(out, { read: 'ERR_ACCESS_DENIED', write: 'ERR_ACCESS_DENIED', spawn: 'ERR_ACCESS_DENIED', worker: 'ERR_ACCESS_DENIED', env: 'allowed' });
  assert.equal(existsSync(join(dir, 'written')), false);
});

test('a handler that loops is stopped within its limit and its process ends; handlers that finish, sync or async, stop nothing', async () => {
  const stops: string[] = [];
  const children = () => new Set(childPids().filter((pid) => commandLine(pid)?.some((arg) => arg.includes('node-child.mjs'))));
  const others = children();
  const w = await createConfinedWorker({
    name: 'handlers',
    source: HANDLERS_MODULE,
    capabilities: {},
    limits: { handlerTimeoutMs: 2000 },
    onStop: (e) => stops.push(`${e.reason}: ${e.error.message}`),
  });
  const ours = [...children()].filter((pid) => !others.has(pid));
  assert.equal(ours.length, 1);
  await w.call(['init'], []);
  await until('its handlers are registered', () => w.listens('spin'));
  w.deliver('quick', {});
  w.deliver('later', {});
  for (;;) if ((await w.call(['heard'], [])) === 2) break;
  w.deliver('spin', {});
  await until('the looping handler is stopped', () => stops.length > 0, 30_000);
  assert.equal(stops.length, 1);
  assert.match(stops[0]!, /^handler-timeout: \[sandbox\] "handlers": its handler of "spin" did not finish within 2000 ms; the worker was stopped$/);
  await assert.rejects(w.call(['heard'], []), (e: Error & { code: string }) => e.code === 'SANDBOX_HANDLER_TIMEOUT');
  await until('its process ended', () => !children().has(ours[0]!));
  await w.terminate();
});
