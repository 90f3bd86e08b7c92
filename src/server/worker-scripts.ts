/**
 * The two worker scripts a page loads by URL, as servers hand them out: the Pyodide worker and
 * the confined worker for agent-made JavaScript. An installed package reads the built ones it
 * ships (`dist/browser/`); a checkout bundles each from the sources once per process.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { packageRoot, pyodideBrowserWorker, sandboxBrowserWorker } from '../platform/package-layout.ts';

/** What to serve, the built file or a bundle of the sources; a failed read or bundle is retried next time. */
function cached(built: URL | undefined, bundle: (root: string) => Promise<string>): () => Promise<string> {
  let text: Promise<string> | undefined;
  return () => {
    text ??= built ? readFile(built, 'utf8') : bundle(fileURLToPath(packageRoot));
    text.catch(() => {
      text = undefined;
    });
    return text;
  };
}

/** The confined worker's browser script (`src/sandbox/browser-worker.ts`, self-contained). */
export const sandboxWorkerScript: () => Promise<string> = cached(sandboxBrowserWorker, async (root) => (await import('./build-dashboard.ts')).buildSandboxWorker(root));

/** The Pyodide worker's browser script (`upgrades/pyodide-runtime/worker/main.ts`, self-contained). */
export const pyodideWorkerScriptText: () => Promise<string> = cached(pyodideBrowserWorker, async (root) => (await import('./build-dashboard.ts')).buildPyodideWorker(root));
