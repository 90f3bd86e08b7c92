import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';
import { projectRoot } from '../platform/node.ts';
import type { McpServers } from '../kernel/mcp-servers.ts';
import { ArmatureError } from '../kernel/errors.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { AttachedApi } from './attached-api.ts';
import { AccessGuard, isLoopbackName, newAccessToken, refuse } from './guard.ts';
import { armatureHandler, ISOLATION_HEADERS, MCP_SERVERS_PATH, pyodideWorkerCsp } from './middleware.ts';
import { MODE_META, type PageMode } from '../view/page-mode.ts';

/** Options of {@link startServer}. */
export interface ServeOptions {
  /**
   * A folder of your own served beside the package's (as `boot({ root })` reads one in Node): its
   * manifests and blueprints join the project snapshot, its `upgrades/` are served (JavaScript
   * only) at `/__armature/root/upgrades/` for the page to import. Default: none.
   */
  root?: string;
  /** Port; 0 picks a free one. Default: `PORT` from the environment, else 8080. */
  port?: number;
  /** Interface to listen on. Default: 127.0.0.1. */
  host?: string;
  /** Listen on a host that is not loopback (anyone who reaches it and has the token gets in). Default: false. */
  allowRemote?: boolean;
  /**
   * The access token every request needs (`?token=` once, then a cookie; or `Authorization:
   * Bearer`), at least 16 characters. Default: a random one, in {@link RunningServer.url}.
   */
  token?: string;
  /** Directory of the built dashboard (page and bundles, see `buildDashboard`). Default: the package's `dist/dashboard`. */
  outDir?: string;
  /** HTML served at `/`. Default: `index.html` in `outDir`. */
  html?: string;
  /**
   * MCP servers (from `--mcp-config`) the page's McpClient gets at {@link MCP_SERVERS_PATH}. A
   * browser reaches HTTP servers only; stdio entries are passed without their environment, to
   * show as failed with the reason. Secrets never go to the page: neither an entry's `env` nor
   * its `headers` (a server that needs a bearer token is reached by a Node system, `armature
   * start` without `--in-browser`). Default: none.
   */
  mcpServers?: McpServers;
  /**
   * A system booted in this process (on a data folder): the page is then a view of it and of the
   * other processes on its folder, through the attached API (`attached-api.ts`), instead of
   * booting a system of its own. Default: none (the page boots its own).
   */
  system?: ArmatureSystem;
}

/** The page's `<meta name="armature-mode">`: `attached` (a view of the server's system) or `page` (it boots its own). */
export { MODE_META } from '../view/page-mode.ts';

/** A running dashboard server. */
export interface RunningServer {
  /** The URL to open: the origin with `/?token=...` (a person opens it once; the cookie does the rest). */
  url: string;
  /** `http://host:port`, without the token. */
  origin: string;
  /** The access token (for programs: `Authorization: Bearer <token>`). */
  token: string;
  close(): Promise<void>;
}

/**
 * Serves the dashboard: `/` (the page), `/dist/*` (the bundles in `outDir`), and what
 * `armatureMiddleware` serves — the project snapshot (with a root's, and its upgrades' modules
 * under `/__armature/root/upgrades/`), the Pyodide worker at `/__armature/pyodide-worker.js` and
 * Pyodide's files at `/pyodide/` (the installed package, so no network is needed), the confined
 * worker's script (each script with its Content-Security-Policy) — every response with the two
 * cross-origin isolation headers so the shared-buffer bridge is available.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const listenHost = options.host ?? '127.0.0.1';
  const loopback = isLoopbackName(listenHost);
  if (!loopback && !options.allowRemote) {
    throw new ArmatureError('SERVE_REMOTE_NOT_ALLOWED', `[serve] --host ${listenHost} is not a loopback address: anyone who can reach it could see and steer this system. Pass --allow-remote to mean it (the access token is still required), or use --host 127.0.0.1`);
  }
  const wildcard = listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '[::]';
  const guard = new AccessGuard({ token: options.token ?? newAccessToken(), allowedHosts: loopback ? [] : [wildcard ? '*' : listenHost] });
  const outDir = options.outDir ?? join(projectRoot, 'dist', 'dashboard');
  const setHeaders = (res: ServerResponse) => {
    for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  };
  const dist = sirv(outDir, { dev: true, setHeaders });
  const armature = armatureHandler({ root: options.root });
  const api = options.system ? new AttachedApi(options.system) : undefined;
  const page = withMode(options.html ?? (await readDashboardPage(outDir)), api ? 'attached' : 'page');

  let port = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    guard.protect(res);
    setHeaders(res);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const notFound = () => {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(`Not found: ${url.pathname}`);
    };
    const isPage = url.pathname === '/' || url.pathname === '/index.html';
    const refusal = guard.checkHost(req) ?? guard.checkOrigin(req, isPage && req.method === 'GET');
    if (refusal) return refuse(res, refusal);
    const given = url.searchParams.get('token');
    if (isPage && given !== null) {
      if (!guard.matches(given)) return refuse(res, { status: 401, message: 'The access token in this URL is wrong: open the URL that armature start printed last (each start prints a new one).' });
      // The token leaves the address bar at once; the cookie carries it from here on.
      url.searchParams.delete('token');
      res.writeHead(303, { Location: `/${url.search}`, 'Set-Cookie': guard.setCookie(port), 'Cache-Control': 'no-store' });
      return res.end();
    }
    if (!guard.authorized(req, port)) {
      return refuse(res, { status: 401, message: 'This dashboard needs its access token: open the URL that armature start printed (it ends with ?token=...), or send Authorization: Bearer <token>.' }, { 'WWW-Authenticate': 'Bearer realm="armature"' });
    }
    try {
      if (api && (await api.handle(req, res, url.pathname))) return;
      if (isPage) {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.setHeader('Cache-Control', 'no-store');
        res.end(page);
      } else if (url.pathname === '/favicon.ico') {
        res.statusCode = 204;
        res.end();
      } else if (url.pathname === MCP_SERVERS_PATH && !options.mcpServers) {
        // No --mcp-config: nothing to hand on, which is not an error (the page asks on every load).
        res.statusCode = 204;
        res.setHeader('Cache-Control', 'no-store');
        res.end();
      } else if (url.pathname === MCP_SERVERS_PATH && options.mcpServers) {
        res.setHeader('Content-Type', 'application/json');
        res.setHeader('Cache-Control', 'no-store');
        const forPage = Object.fromEntries(Object.entries(options.mcpServers).map(([n, s]) => [n, 'command' in s ? { ...s, env: {} } : { ...s, headers: {} }]));
        res.end(JSON.stringify(forPage));
      } else if (url.pathname.startsWith('/dist/')) {
        // The Pyodide worker's script carries its own policy: no eval, WebAssembly only.
        if (url.pathname === '/dist/pyodide-worker.js') res.setHeader('Content-Security-Policy', pyodideWorkerCsp());
        req.url = url.pathname.slice('/dist'.length) + url.search;
        dist(req, res, notFound);
      } else if (!(await armature(req, res))) notFound();
    } catch (e) {
      res.statusCode = 500;
      res.end(`Server error: ${(e as Error).message}`);
    }
  });
  const wanted = options.port ?? (process.env.PORT ? Number(process.env.PORT) : 8080);
  if (!Number.isInteger(wanted) || wanted < 0 || wanted > 65535) throw new Error(`[serve] port must be a whole number from 0 to 65535, got ${JSON.stringify(wanted)}`);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new Error(`[serve] port ${wanted} is in use: pass --port N or set PORT to a free port`) : e),
    );
    server.listen(wanted, listenHost, () => resolve());
  });
  const address = server.address() as AddressInfo;
  port = address.port;
  const origin = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  return {
    url: `${origin}/?token=${encodeURIComponent(guard.token)}`,
    origin,
    token: guard.token,
    close: () =>
      new Promise((resolve) => {
        api?.dispose();
        server.close(() => resolve());
        // Event streams stay open by design: end them with the server.
        server.closeAllConnections();
      }),
  };
}

/** `html` with the page's mode said in a meta tag the page reads at start. */
function withMode(html: string | Buffer, mode: PageMode): string {
  const text = html.toString();
  const meta = `<meta name="${MODE_META}" content="${mode}">`;
  if (/<head[^>]*>/i.test(text)) return text.replace(/<head[^>]*>/i, (h) => `${h}${meta}`);
  // No head: after the doctype (before it, the page would render in quirks mode).
  return /^\s*<!doctype[^>]*>/i.test(text) ? text.replace(/^\s*<!doctype[^>]*>/i, (d) => `${d}${meta}`) : `${meta}${text}`;
}

async function readDashboardPage(outDir: string): Promise<Buffer> {
  try {
    return await readFile(join(outDir, 'index.html'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    throw new Error(`[serve] no dashboard in ${outDir} (index.html is missing): build it with buildDashboard, or run npm run build in a checkout`);
  }
}
