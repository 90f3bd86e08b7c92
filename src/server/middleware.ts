import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { packageRoot, sandboxBrowserWorker } from '../platform/package-layout.ts';
import { SANDBOX_WORKER_CSP, SANDBOX_WORKER_PATH } from '../sandbox/worker-script.ts';
import { readProjectSnapshot } from './project-snapshot.ts';

/** The subset of a Koa context these middlewares use (@web/dev-server and @web/test-runner are Koa-based). */
interface KoaLikeContext {
  path: string;
  body: unknown;
  type: string;
  set(name: string, value: string): void;
  /** `http://host:port` of the request. */
  origin?: string;
}
type Next = () => Promise<unknown>;

/** Path of the project snapshot endpoint the browser platform reads. */
export const PROJECT_SNAPSHOT_PATH = '/__armature/project.json';

/** Path of the `--mcp-config` servers `armature start` hands to the page (204 No Content without one). */
export const MCP_SERVERS_PATH = '/__armature/mcp-servers.json';

/**
 * The two headers that make a page and its workers cross-origin isolated, so that
 * `SharedArrayBuffer` exists (needed by the interrupt buffer and the call_tool bridge).
 */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Koa middleware adding {@link ISOLATION_HEADERS} to every response. */
export function isolationHeadersMiddleware() {
  return async (ctx: KoaLikeContext, next: Next) => {
    for (const [k, v] of Object.entries(ISOLATION_HEADERS)) ctx.set(k, v);
    await next();
  };
}

/**
 * Koa middleware serving the project snapshot (the package's manifests and blueprints, and those of
 * a user's `root` beside them) at {@link PROJECT_SNAPSHOT_PATH}.
 */
export function projectFilesMiddleware(root?: string) {
  return async (ctx: KoaLikeContext, next: Next) => {
    if (ctx.path !== PROJECT_SNAPSHOT_PATH) return next();
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(await readProjectSnapshot(root));
  };
}

let sandboxScript: Promise<string> | undefined;

/**
 * The confined worker's browser script: the built one the package ships, or from a checkout
 * bundled once per process from the sources.
 */
export function sandboxWorkerScript(): Promise<string> {
  sandboxScript ??= sandboxBrowserWorker
    ? readFile(sandboxBrowserWorker, 'utf8')
    : import('./build-dashboard.ts').then(({ buildSandboxWorker }) => buildSandboxWorker(fileURLToPath(packageRoot)));
  sandboxScript.catch(() => {
    sandboxScript = undefined;
  });
  return sandboxScript;
}

/**
 * Koa middleware serving the confined worker's script at {@link SANDBOX_WORKER_PATH} with its
 * Content-Security-Policy (no network, no eval, scripts from `blob:` only). A page that runs
 * agent-made code in the browser needs its server to serve this.
 */
export function sandboxWorkerMiddleware() {
  return async (ctx: KoaLikeContext, next: Next) => {
    if (ctx.path !== SANDBOX_WORKER_PATH) return next();
    ctx.type = 'text/javascript';
    ctx.set('Content-Security-Policy', SANDBOX_WORKER_CSP);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await sandboxWorkerScript();
  };
}

/** Where the pinned Pyodide's packages live by default (its official CDN folder). */
const PYODIDE_CDN = 'https://cdn.jsdelivr.net/pyodide/';

/**
 * The Content-Security-Policy of the Pyodide worker's script. A worker's policy comes from its own
 * script's response: no `eval` or `new Function` (so no JavaScript function's `.constructor` and no
 * `run_js` evaluates anything), WebAssembly allowed (`'wasm-unsafe-eval'`: Pyodide needs nothing
 * more — verified by the browser suites), scripts and requests only from this origin and the
 * pinned Pyodide CDN folder, no nested workers. Same-origin requests stay possible for Pyodide's
 * own files and a local package index; Python's `fetch` is policed inside the worker.
 */
export function pyodideWorkerCsp(): string {
  return `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ${PYODIDE_CDN}; worker-src 'none'`;
}

/** Koa middleware adding {@link pyodideWorkerCsp} to the responses of the Pyodide worker's scripts (`paths`). */
export function pyodideWorkerCspMiddleware(paths: readonly string[]) {
  return async (ctx: KoaLikeContext, next: Next) => {
    await next();
    if (paths.includes(ctx.path)) ctx.set('Content-Security-Policy', pyodideWorkerCsp());
  };
}
