import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import sirv from 'sirv';
import { projectRoot } from '../platform/node.ts';
import type { McpServers } from '../kernel/mcp-servers.ts';
import { armatureHandler, ISOLATION_HEADERS, MCP_SERVERS_PATH, pyodideWorkerCsp } from './middleware.ts';

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
  /** Directory of the built dashboard (page and bundles, see `buildDashboard`). Default: the package's `dist/dashboard`. */
  outDir?: string;
  /** HTML served at `/`. Default: `index.html` in `outDir`. */
  html?: string;
  /**
   * MCP servers (from `--mcp-config`) the page's McpClient gets at {@link MCP_SERVERS_PATH}. A
   * browser reaches HTTP servers only; stdio entries are passed without their environment, to
   * show as failed with the reason. Default: none.
   */
  mcpServers?: McpServers;
}

/** A running dashboard server. */
export interface RunningServer {
  url: string;
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
  const outDir = options.outDir ?? join(projectRoot, 'dist', 'dashboard');
  const setHeaders = (res: ServerResponse) => {
    for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  };
  const dist = sirv(outDir, { dev: true, setHeaders });
  const armature = armatureHandler({ root: options.root });
  const page = options.html ?? (await readDashboardPage(outDir));

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    setHeaders(res);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const notFound = () => {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(`Not found: ${url.pathname}`);
    };
    try {
      if (url.pathname === '/' || url.pathname === '/index.html') {
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
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
        const forPage = Object.fromEntries(Object.entries(options.mcpServers).map(([n, s]) => [n, 'command' in s ? { ...s, env: {} } : s]));
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
  const port = options.port ?? (process.env.PORT ? Number(process.env.PORT) : 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`[serve] port must be a whole number from 0 to 65535, got ${JSON.stringify(port)}`);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new Error(`[serve] port ${port} is in use: pass --port N or set PORT to a free port`) : e),
    );
    server.listen(port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address === '::1' ? '[::1]' : address.address}:${address.port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readDashboardPage(outDir: string): Promise<Buffer> {
  try {
    return await readFile(join(outDir, 'index.html'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    throw new Error(`[serve] no dashboard in ${outDir} (index.html is missing): build it with buildDashboard, or run npm run build in a checkout`);
  }
}
