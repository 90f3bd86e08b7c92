/**
 * What a page booting Armature needs from its server, as middleware for any Node server (see
 * `dual-middleware.ts`: Express, Vite, connect, plain `node:http`, and Koa for @web/test-runner):
 *
 * | path | what | middleware |
 * |---|---|---|
 * | every response | the two cross-origin isolation headers (shared-memory `call_tool`) | {@link isolationHeadersMiddleware} |
 * | `/__armature/project.json` | the manifests and blueprints (and a root's) | {@link projectFilesMiddleware} |
 * | `/__armature/pyodide-worker.js` | the Pyodide worker, with its CSP | {@link pyodideWorkerMiddleware} |
 * | `/pyodide/` | Pyodide's own files, from the installed package | {@link pyodideFilesMiddleware} |
 * | `/__armature/sandbox-worker.js` | the confined worker for agent-made JavaScript, with its CSP | {@link sandboxWorkerMiddleware} |
 * | `/__armature/root/upgrades/` | a root's upgrades (their JavaScript modules) | {@link rootModulesMiddleware} |
 *
 * {@link armatureMiddleware} is all of them in one.
 */
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import sirv from 'sirv';
import { ROOT_MODULES_PATH } from '../platform/browser/browser.ts';
import { projectRoot } from '../platform/node.ts';
import { PYODIDE_FILES_PATH, PYODIDE_WORKER_PATH } from '../platform/package-layout.ts';
import { SANDBOX_WORKER_CSP, SANDBOX_WORKER_PATH } from '../sandbox/worker-script.ts';
import { chain, dual, pathOf, send, type DualMiddleware, type Handler } from './dual-middleware.ts';
import { readProjectSnapshot } from './project-snapshot.ts';
import { pyodideWorkerScriptText, sandboxWorkerScript } from './worker-scripts.ts';

export { PYODIDE_FILES_PATH, PYODIDE_WORKER_PATH } from '../platform/package-layout.ts';
export { ROOT_MODULES_PATH } from '../platform/browser/browser.ts';
export type { DualMiddleware, KoaLikeContext } from './dual-middleware.ts';

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

const isolationHeaders: Handler = async (_req, res) => {
  for (const [k, v] of Object.entries(ISOLATION_HEADERS)) res.setHeader(k, v);
  return false;
};

/** Adds {@link ISOLATION_HEADERS} to every response. */
export function isolationHeadersMiddleware(): DualMiddleware {
  return dual(isolationHeaders);
}

function projectFiles(root?: string): Handler {
  return async (req, res) => pathOf(req) === PROJECT_SNAPSHOT_PATH && send(req, res, 'application/json', JSON.stringify(await readProjectSnapshot(root)));
}

/**
 * Serves the project snapshot — the package's manifests and blueprints, and those of a user's
 * `root` beside them — at {@link PROJECT_SNAPSHOT_PATH}.
 */
export function projectFilesMiddleware(root?: string): DualMiddleware {
  return dual(projectFiles(root));
}

const pyodideWorker: Handler = async (req, res) =>
  pathOf(req) === PYODIDE_WORKER_PATH && send(req, res, 'text/javascript; charset=utf-8', await pyodideWorkerScriptText(), { 'Content-Security-Policy': pyodideWorkerCsp() });

/**
 * Serves the Pyodide worker (self-contained) at {@link PYODIDE_WORKER_PATH}, where a page's
 * `boot()` looks for it by default, with its Content-Security-Policy ({@link pyodideWorkerCsp}).
 */
export function pyodideWorkerMiddleware(): DualMiddleware {
  return dual(pyodideWorker);
}

function pyodideWorkerCspFor(paths: readonly string[]): Handler {
  return async (req, res) => {
    if (paths.includes(pathOf(req))) res.setHeader('Content-Security-Policy', pyodideWorkerCsp());
    return false;
  };
}

/**
 * Adds {@link pyodideWorkerCsp} to the responses of the Pyodide worker's scripts at `paths`, for a
 * server that serves the worker itself (a dev server serving `worker.ts`).
 */
export function pyodideWorkerCspMiddleware(paths: readonly string[]): DualMiddleware {
  return dual(pyodideWorkerCspFor(paths));
}

const sandboxWorker: Handler = async (req, res) =>
  pathOf(req) === SANDBOX_WORKER_PATH && send(req, res, 'text/javascript; charset=utf-8', await sandboxWorkerScript(), { 'Content-Security-Policy': SANDBOX_WORKER_CSP });

/**
 * Serves the confined worker's script at {@link SANDBOX_WORKER_PATH} with its Content-Security-Policy
 * (no network, no eval, scripts from `blob:` only). A page that runs agent-made code needs it.
 */
export function sandboxWorkerMiddleware(): DualMiddleware {
  return dual(sandboxWorker);
}

/** A handler serving folder `dir` under URL prefix `prefix` (sirv: no path escapes the folder). */
function folder(prefix: string, dir: string, options: { maxAge?: number; only?: RegExp } = {}): Handler {
  const serve = sirv(dir, { dev: options.maxAge === undefined, maxAge: options.maxAge });
  return (req, res) =>
    new Promise((resolvePromise, reject) => {
      const path = pathOf(req);
      if (!path.startsWith(prefix) || (options.only && !options.only.test(path))) return resolvePromise(false);
      const url = req.url;
      req.url = `/${(req.url ?? '/').slice(prefix.length)}`;
      res.once('finish', () => resolvePromise(true));
      try {
        serve(req, res, () => {
          req.url = url;
          resolvePromise(false);
        });
      } catch (e) {
        reject(e);
      }
    });
}

function pyodideFiles(): Handler {
  return folder(PYODIDE_FILES_PATH, dirname(createRequire(import.meta.url).resolve('pyodide/package.json')), { maxAge: 3600 });
}

/** Serves the installed Pyodide package's files at {@link PYODIDE_FILES_PATH}, where a page's `boot()` looks for them by default. */
export function pyodideFilesMiddleware(): DualMiddleware {
  return dual(pyodideFiles());
}

function rootModules(root: string): Handler {
  return folder(`${ROOT_MODULES_PATH}upgrades/`, join(root, 'upgrades'), { only: /\.m?js$/ });
}

/** Serves a root's upgrades' JavaScript modules at `/__armature/root/upgrades/`, where the browser platform imports them. */
export function rootModulesMiddleware(root: string): DualMiddleware {
  return dual(rootModules(root));
}

/** Options of {@link armatureMiddleware}. */
export interface ArmatureMiddlewareOptions {
  /** A folder of your own served beside the package's (its manifests, blueprints and upgrades). Default: none. */
  root?: string;
  /** Add the cross-origin isolation headers to every response. Default: true. */
  isolation?: boolean;
}

/**
 * Everything a page that boots Armature needs from its server, in one middleware: the isolation
 * headers, the project snapshot, the Pyodide worker and Pyodide's files, the confined worker, and
 * a root's upgrades. Requests for anything else pass on.
 *
 * ```ts
 * app.use(armatureMiddleware());                                   // Express, connect, Vite
 * createServer((req, res) => mw(req, res, () => serveYourApp(req, res)));   // node:http
 * ```
 */
export function armatureMiddleware(options: ArmatureMiddlewareOptions = {}): DualMiddleware {
  return dual(armatureHandler(options));
}

/** {@link armatureMiddleware}'s handler, for servers of this package that compose their own. */
export function armatureHandler(options: ArmatureMiddlewareOptions = {}): Handler {
  const root = options.root !== undefined && resolve(options.root) !== resolve(projectRoot) ? options.root : undefined;
  return chain([
    ...(options.isolation === false ? [] : [isolationHeaders]),
    projectFiles(root),
    pyodideWorker,
    sandboxWorker,
    pyodideFiles(),
    ...(root === undefined ? [] : [rootModules(root)]),
  ]);
}
