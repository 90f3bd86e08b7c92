/**
 * `armature/server` (Node only): what a page booting Armature in the browser needs from its server:
 * the project snapshot the browser platform reads, and the cross-origin isolation headers the
 * shared-memory `call_tool` bridge needs, and the confined worker's script with its CSP (for
 * agent-made code). `startServer` is the dashboard server itself.
 */
export { ISOLATION_HEADERS, PROJECT_SNAPSHOT_PATH, isolationHeadersMiddleware, projectFilesMiddleware, sandboxWorkerMiddleware, sandboxWorkerScript } from './middleware.ts';
export { SANDBOX_WORKER_CSP, SANDBOX_WORKER_PATH } from '../sandbox/worker-script.ts';
export { readProjectSnapshot } from './project-snapshot.ts';
export { startServer } from './serve.ts';
export type { RunningServer, ServeOptions } from './serve.ts';
