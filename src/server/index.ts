/**
 * `armature/server` (Node only): what a page booting Armature in the browser needs from its server:
 * the project snapshot the browser platform reads, and the cross-origin isolation headers the
 * shared-memory `call_tool` bridge needs. `startServer` is the dashboard server itself.
 */
export { ISOLATION_HEADERS, PROJECT_SNAPSHOT_PATH, isolationHeadersMiddleware, projectFilesMiddleware } from './middleware.ts';
export { readProjectSnapshot } from './project-snapshot.ts';
export { startServer } from './serve.ts';
export type { RunningServer, ServeOptions } from './serve.ts';
