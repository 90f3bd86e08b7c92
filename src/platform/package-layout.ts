/**
 * Where Armature's own files are, in the one place that knows its two layouts:
 *
 * - **sources**: a checkout run through tsx (Node) or a dev server (browser). This module is
 *   `src/platform/package-layout.ts`; the Pyodide worker is `upgrades/pyodide-runtime/worker/main.ts`.
 * - **built**: what `npm run build` writes and the package ships. esbuild inlines this module into
 *   a file directly inside `dist/node/` or `dist/browser/`, next to that build's `pyodide-worker.js`.
 *
 * Both layouts put this module two folders below the package root. No Node-only import here: the
 * browser build uses it too.
 */

const here = import.meta.url;

/** Whether Armature runs from its TypeScript sources (a checkout) rather than the built `dist/`. */
export const fromSources: boolean = new URL(here).pathname.endsWith('.ts');

/** The package root: the folder holding `package.json`, `modules/` and `blueprints/`. */
export const packageRoot: URL = new URL('../../', here);

/** The Pyodide worker script (a module worker in the browser, a `worker_threads` entry in Node). */
export const pyodideWorkerScript: URL = fromSources ? new URL('upgrades/pyodide-runtime/worker/main.ts', packageRoot) : new URL('./pyodide-worker.js', here);

/**
 * Node: the confined worker's child entry (`src/sandbox/node-child.ts` bundled to plain JS), when
 * built. From the sources it is bundled on first use (a confined child cannot run TypeScript).
 */
export const sandboxNodeChild: URL | undefined = fromSources ? undefined : new URL('./sandbox-node-child.mjs', here);

/**
 * Browser: the confined worker's script (`src/sandbox/browser-worker.ts`, self-contained), when
 * built. A server serves it at `SANDBOX_WORKER_PATH` with its CSP (see `armature/server`).
 */
export const sandboxBrowserWorker: URL | undefined = fromSources ? undefined : new URL('./sandbox-worker.js', here);

/**
 * Node: the confined child of Python's `process` isolation — its entry and the Pyodide worker it
 * starts, each one self-contained file — when built. From the sources they are bundled on first use.
 */
export const pythonChildEntry: URL | undefined = fromSources ? undefined : new URL('./python-child.mjs', here);
/** See {@link pythonChildEntry}. */
export const pythonChildWorker: URL | undefined = fromSources ? undefined : new URL('./python-worker.mjs', here);

/** The prebuilt dashboard (page, bundles and worker) that `armature start` serves. */
export const dashboardDir: URL = new URL('dist/dashboard/', packageRoot);

/**
 * Node only, sources only: the plain-JS worker entry that registers tsx before importing a
 * TypeScript worker entry (worker threads do not inherit the main thread's module hooks).
 */
export const tsWorkerBootstrap: URL = new URL('src/platform/node-worker-bootstrap.mjs', packageRoot);
