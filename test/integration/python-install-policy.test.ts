// Package installs go through the network policy of Python's fetch (issue 28): with the persona's
// network "none", a wheel URL elsewhere than the package index is refused before any request —
// through execute_python's install_packages and install_python_package, with a session and
// without, in both isolations — while the configured index (a mirror here) stays the allowed
// default, and an origin the persona allows is reachable. A local server records every request.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import { withPersonas } from '../helpers/persona-overlay.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { buildWheel } from '../helpers/wheel.ts';

let server: Server;
let origin: string;
const hits: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const wheel = /\/(\w+)-([\d.]+)-py3-none-any\.whl$/.exec(req.url ?? '');
    if (!wheel) {
      res.writeHead(404).end();
      return;
    }
    void buildWheel(wheel[1]!, wheel[2]!, `VALUE = ${JSON.stringify(req.url)}\n`).then((w) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(w.bytes)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const persona = (network: 'none' | string[]) => ({
  id: 'installer',
  name: 'installer',
  description: 'Installs packages.',
  upgrades: ['ToolRunner', 'PyodideRuntime', 'PythonTool'],
  tools: ['execute_python', 'install_python_package'],
  skills: [],
  network,
});

async function bootWith(isolation: 'process' | 'thread', network: 'none' | string[]): Promise<ArmatureSystem> {
  const dataDir = tempDir('install-policy');
  return boot({
    persona: 'installer',
    dataDir,
    platform: withPersonas(createNodePlatform({ dataDir }), [persona(network)]),
    // The index is a mirror on the local server: its wheels are the allowed default.
    config: { PyodideRuntime: { isolation, autoStart: false, packageIndexURL: `${origin}/index/` } },
  });
}

const failure = (r: { ok: boolean; error?: { code: string; message: string } }) => {
  assert.equal(r.ok, false, JSON.stringify(r));
  return r.error!;
};

for (const isolation of ['process', 'thread'] as const) {
  describe(`installs under the network policy (${isolation})`, () => {
    test('network "none": a wheel URL off the package index is refused with the reason, and no request is made', async () => {
      const sys = await bootWith(isolation, 'none');
      try {
        const before = hits.length;
        const url = `${origin}/exfil/secret/p-1.0-py3-none-any.whl`;
        for (const session of [undefined, 'agent-run']) {
          const opts = { caller: 'agent' as const, ...(session ? { session } : {}) };
          const viaRun = failure(await sys.tools.executeTool('execute_python', { code: 'print(1)', install_packages: [url] }, opts));
          assert.equal(viaRun.code, 'NETWORK_DENIED');
          assert.match(viaRun.message, /installing .*exfil\/secret\/p-1\.0-py3-none-any\.whl.* was refused: it is not under the package index \(http:\/\/127\.0\.0\.1:\d+\/index\/\), and the network policy allows no origin/);
          const viaTool = failure(await sys.tools.executeTool('install_python_package', { package: url }, opts));
          assert.equal(viaTool.code, 'NETWORK_DENIED');
        }
        // The runtime's start reads the index's lock file (allowed); nothing else was asked for.
        assert.deepEqual(hits.slice(before).filter((h) => h !== '/index/pyodide-lock.json'), [], 'the server got no request for the wheel');
      } finally {
        await sys.dispose();
      }
    });

    test('the package index is the allowed default, and an origin the persona allows is reachable', async () => {
      const none = await bootWith(isolation, 'none');
      try {
        const before = hits.length;
        const r = await none.tools.executeTool<{ value: unknown; installed: string[] }>('execute_python', { code: 'import under_index\nunder_index.VALUE', install_packages: [`${origin}/index/under_index-1.0-py3-none-any.whl`] }, { caller: 'agent' });
        assert.ok(r.ok, JSON.stringify(r));
        assert.equal(r.value.value, '/index/under_index-1.0-py3-none-any.whl');
        assert.ok(hits.slice(before).includes('/index/under_index-1.0-py3-none-any.whl'));
      } finally {
        await none.dispose();
      }
      const allowed = await bootWith(isolation, [origin]);
      try {
        const r = await allowed.tools.executeTool<{ installed: string[] }>('install_python_package', { package: `${origin}/allowed/elsewhere-1.0-py3-none-any.whl` }, { caller: 'agent', session: 'allowed' });
        assert.ok(r.ok, JSON.stringify(r));
      } finally {
        await allowed.dispose();
      }
    });
  });
}
