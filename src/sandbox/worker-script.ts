/**
 * Where a browser finds the confined worker's script, and the Content-Security-Policy it is served
 * with. Both the dashboard server and the test server serve it (see `src/server/`).
 */

/** Path of the confined worker's script (one self-contained bundle of `browser-worker.ts`). */
export const SANDBOX_WORKER_PATH = '/__armature/sandbox-worker.js';

/** File name of that bundle in the built dashboard (`dist/dashboard/`) and browser build (`dist/browser/`). */
export const SANDBOX_WORKER_FILE = 'sandbox-worker.js';

/**
 * The script's CSP. A worker's policy comes from its own script's response: no network at all
 * (`connect-src 'none'`: every request goes through the host's policy fetch), no nested workers,
 * scripts only from `blob:` (the agent's module; the bundle imports nothing), and no `eval`,
 * `new Function` or WebAssembly compilation (no `'unsafe-eval'`, no `'wasm-unsafe-eval'`).
 */
export const SANDBOX_WORKER_CSP = "default-src 'none'; script-src blob:; connect-src 'none'; worker-src 'none'";
