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

/**
 * Where a page gets the Pyodide worker by default: served by `armature/server`'s middleware (and
 * `startServer`), emitted there by the Vite plugin (`armature/vite`). A bundle cannot find the file
 * beside its own chunks, so the default is this one path on the page's origin.
 */
export const PYODIDE_WORKER_PATH = '/__armature/pyodide-worker.js';

/** Where a page gets Pyodide's own files by default (`indexURL`), served the same ways. */
export const PYODIDE_FILES_PATH = '/pyodide/';

// Read off globalThis: this file is compiled for Node (no DOM types) and for browsers (no Node types).
const host = globalThis as { process?: { versions?: { node?: string } }; window?: unknown; location?: { href: string } };
const inNodeRuntime = typeof host.process?.versions?.node === 'string' && host.window === undefined;

/**
 * The Pyodide worker script (a module worker in the browser, a `worker_threads` entry in Node):
 * from the sources `worker/main.ts`; built, in Node the `pyodide-worker.js` beside this file, in a
 * browser {@link PYODIDE_WORKER_PATH} on the page's origin.
 */
export const pyodideWorkerScript: URL = fromSources
  ? new URL('upgrades/pyodide-runtime/worker/main.ts', packageRoot)
  : inNodeRuntime || host.location === undefined
    ? new URL('./pyodide-worker.js', here)
    : new URL(PYODIDE_WORKER_PATH, host.location.href);

/**
 * Node: the built browser worker (`dist/browser/pyodide-worker.js`, self-contained) that servers
 * hand to pages at {@link PYODIDE_WORKER_PATH}. From the sources it is bundled on first use.
 */
export const pyodideBrowserWorker: URL | undefined = fromSources ? undefined : new URL('../browser/pyodide-worker.js', here);

/**
 * Node: the confined worker's child entry (`src/sandbox/node-child.ts` bundled to plain JS), when
 * built. From the sources it is bundled on first use (a confined child cannot run TypeScript).
 */
export const sandboxNodeChild: URL | undefined = fromSources ? undefined : new URL('./sandbox-node-child.mjs', here);

/**
 * Browser: the confined worker's script (`src/sandbox/browser-worker.ts`, self-contained), when
 * built: `dist/browser/sandbox-worker.js`, found from either build. A server serves it at
 * `SANDBOX_WORKER_PATH` with its CSP (see `armature/server`).
 */
export const sandboxBrowserWorker: URL | undefined = fromSources ? undefined : new URL('../browser/sandbox-worker.js', here);

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
