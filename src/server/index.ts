/**
 * `armature/server` (Node only): what a page booting Armature in the browser needs from its server,
 * as middleware for Express, Vite, connect, plain `node:http` and Koa (`armatureMiddleware` is all
 * of it in one): the cross-origin isolation headers the shared-memory `call_tool` bridge needs,
 * the project snapshot the browser platform reads, the Pyodide worker and Pyodide's files, and the
 * confined worker for agent-made code, each script with its CSP. `startServer` is the dashboard
 * server itself; `armature/vite` is the same for Vite.
 *
 * @packageDocumentation
 */
export {
  armatureMiddleware,
  ISOLATION_HEADERS,
  isolationHeadersMiddleware,
  PROJECT_SNAPSHOT_PATH,
  PYODIDE_FILES_PATH,
  PYODIDE_WORKER_PATH,
  projectFilesMiddleware,
  pyodideFilesMiddleware,
  pyodideWorkerCsp,
  pyodideWorkerCspMiddleware,
  pyodideWorkerMiddleware,
  ROOT_MODULES_PATH,
  rootModulesMiddleware,
  sandboxWorkerMiddleware,
} from './middleware.ts';
export type { ArmatureMiddlewareOptions, DualMiddleware, KoaLikeContext } from './middleware.ts';
export { pyodideWorkerScriptText, sandboxWorkerScript } from './worker-scripts.ts';
export { SANDBOX_WORKER_CSP, SANDBOX_WORKER_PATH } from '../sandbox/worker-script.ts';
export { readProjectSnapshot } from './project-snapshot.ts';
export { startServer } from './serve.ts';
export type { RunningServer, ServeOptions } from './serve.ts';
