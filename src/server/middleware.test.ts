// armature/server's middleware on a plain node:http server, called connect-style and Koa-style:
// what a page's boot() asks for by default is answered, with its headers; the rest passes on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { armatureMiddleware, PYODIDE_FILES_PATH, PYODIDE_WORKER_PATH } from './middleware.ts';
import type { KoaLikeContext } from './dual-middleware.ts';

const root = tempDir('middleware-root');
mkdirSync(join(root, 'upgrades/tally'), { recursive: true });
mkdirSync(join(root, 'modules/personas'), { recursive: true });
writeFileSync(join(root, 'upgrades/tally/index.mjs'), 'export const metadata = {};\n');
writeFileSync(join(root, 'upgrades/tally/notes.txt'), 'not a module');
writeFileSync(join(root, 'modules/personas/mine.json'), '{"id":"mine"}');

const servers: Server[] = [];
after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A server answering through the middleware, called `style`-wise; what passes on is a 418. */
async function serve(style: 'connect' | 'koa'): Promise<string> {
  const mw = armatureMiddleware({ root });
  const server = createServer((req, res) => {
    const fallback = () => {
      res.statusCode = 418;
      res.end('passed on');
    };
    if (style === 'connect') mw(req, res, fallback);
    else {
      const ctx: KoaLikeContext = { req, res };
      void mw(ctx, async () => fallback());
    }
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

for (const style of ['connect', 'koa'] as const) {
  test(`${style}-style: the snapshot (with the root's files), both workers with their CSP, Pyodide's files, the root's modules; the rest passes on`, async () => {
    const base = await serve(style);
    const get = (path: string) => fetch(`${base}${path}`);

    const snapshot = await get('/__armature/project.json');
    assert.equal(snapshot.headers.get('cross-origin-embedder-policy'), 'require-corp');
    const files = (await snapshot.json()) as { files: Record<string, string>; root: { files: Record<string, string> } };
    assert.ok(files.files['modules/upgrades.json'] && files.root.files['modules/personas/mine.json']);

    const worker = await get(PYODIDE_WORKER_PATH);
    assert.equal(worker.status, 200);
    assert.match(worker.headers.get('content-security-policy')!, /script-src 'self' 'wasm-unsafe-eval'/);
    assert.match(worker.headers.get('content-type')!, /javascript/);
    assert.ok((await worker.text()).length > 10_000);

    const sandbox = await get('/__armature/sandbox-worker.js');
    assert.equal(sandbox.headers.get('content-security-policy'), "default-src 'none'; script-src blob:; connect-src 'none'; worker-src 'none'");

    const lock = await get(`${PYODIDE_FILES_PATH}pyodide-lock.json`);
    assert.equal(lock.status, 200);
    assert.equal(((await lock.json()) as { info: { python: string } }).info.python, '3.13.2');

    const upgrade = await get('/__armature/root/upgrades/tally/index.mjs');
    assert.equal(upgrade.status, 200);
    assert.match(await upgrade.text(), /export const metadata/);
    // Only modules of a root's upgrades are served, never other files of the root.
    for (const path of ['/__armature/root/upgrades/tally/notes.txt', '/__armature/root/upgrades/../modules/personas/mine.json', '/elsewhere', `${PYODIDE_FILES_PATH}nope.js`]) {
      const r = await get(path);
      assert.equal(r.status, 418, `${path} should pass on`);
      assert.equal(await r.text(), 'passed on');
    }
  });
}
