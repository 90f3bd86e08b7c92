// Test-server routes that record requests, so browser suites can assert that confined code sent
// none: `/__armature/test-probe/hit/<token>` records (CORS open), `/__armature/test-probe/hits/<token>`
// lists what was recorded, `/__armature/test-probe/cors-origin` names a second, cross-origin server
// (also CORS open) whose hits are recorded in the same place, and `/__armature/test-probe/csp-worker.js`
// is a plain worker served with the confined worker's CSP, to test that layer on its own.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SANDBOX_WORKER_CSP } from '../../src/sandbox/worker-script.ts';

interface KoaLikeContext {
  path: string;
  method: string;
  body: unknown;
  type: string;
  status: number;
  set(name: string, value: string): void;
}

const hits = new Map<string, string[]>();
const HIT = /^\/__armature\/test-probe\/hit\/([\w-]{1,80})/;
let corsServer: Promise<string> | undefined;

function record(path: string, method: string): boolean {
  const m = HIT.exec(path);
  if (!m) return false;
  const list = hits.get(m[1]!) ?? [];
  list.push(`${method} ${path}`);
  hits.set(m[1]!, list);
  return true;
}

const OPEN_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/** A second server on another port (another origin), answering every hit with CORS open. */
function startCorsServer(): Promise<string> {
  corsServer ??= new Promise((resolve) => {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      for (const [k, v] of Object.entries(OPEN_HEADERS)) res.setHeader(k, v);
      if (req.method !== 'OPTIONS' && !record(path, req.method ?? 'GET')) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ probe: 'cross-origin', path }));
    });
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    server.unref();
  });
  return corsServer;
}

/** Koa middleware with the probe routes. */
export function probeMiddleware() {
  return async (ctx: KoaLikeContext, next: () => Promise<unknown>) => {
    if (!ctx.path.startsWith('/__armature/test-probe/')) return next();
    for (const [k, v] of Object.entries(OPEN_HEADERS)) ctx.set(k, v);
    ctx.type = 'application/json';
    if (ctx.path === '/__armature/test-probe/cors-origin') {
      ctx.body = JSON.stringify({ origin: await startCorsServer() });
      return;
    }
    if (ctx.path === '/__armature/test-probe/csp-worker.js') {
      ctx.type = 'text/javascript';
      ctx.set('Content-Security-Policy', SANDBOX_WORKER_CSP);
      ctx.body = CSP_PROBE;
      return;
    }
    const list = /^\/__armature\/test-probe\/hits\/([\w-]{1,80})$/.exec(ctx.path);
    if (list) {
      ctx.body = JSON.stringify(hits.get(list[1]!) ?? []);
      return;
    }
    if (record(ctx.path, ctx.method)) {
      ctx.body = JSON.stringify({ probe: 'same-origin', path: ctx.path });
      return;
    }
    ctx.status = 404;
  };
}

/**
 * A worker with no lockdown at all, only the confined worker's CSP: given a URL, it tries every
 * route out and eval-style code, and posts what happened.
 */
const CSP_PROBE = `
onmessage = async ({ data: { url } }) => {
  const out = {};
  const attempt = async (k, f) => { try { await f(); out[k] = 'allowed'; } catch (e) { out[k] = 'refused'; } };
  await attempt('fetch', () => fetch(url));
  await attempt('xhr', () => { const x = new XMLHttpRequest(); x.open('GET', url, false); x.send(); });
  await attempt('import', () => import(url));
  await attempt('importScripts', () => importScripts(url));
  await attempt('eventSource', () => new Promise((res, rej) => { const s = new EventSource(url); s.onopen = res; s.onerror = () => { s.close(); rej(new Error('no')); }; }));
  await attempt('webSocket', () => new Promise((res, rej) => { const s = new WebSocket(url.replace(/^http/, 'ws')); s.onopen = res; s.onerror = () => rej(new Error('no')); }));
  await attempt('worker', () => new Promise((res, rej) => { const w = new Worker(url); w.onerror = () => rej(new Error('no')); setTimeout(res, 300); }));
  await attempt('eval', () => eval('1'));
  await attempt('function', () => new Function('return 1')());
  await attempt('wasm', () => WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
  postMessage(out);
};`;
