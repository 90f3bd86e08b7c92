import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { SANDBOX_WORKER_FILE } from '../sandbox/worker-script.ts';
import { makeFolders } from '../platform/node-files.ts';

/**
 * The confined worker's browser script (`src/sandbox/browser-worker.ts`) as one self-contained
 * module: its CSP allows scripts from `blob:` only, so it must import nothing.
 */
export async function buildSandboxWorker(root: string, options: { minify?: boolean } = {}): Promise<string> {
  const r = await esbuild.build({
    entryPoints: [join(root, 'src/sandbox/browser-worker.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: options.minify ?? true,
    conditions: ['browser', 'production'],
    logLevel: 'warning',
  });
  return r.outputFiles[0]!.text;
}

/**
 * The Pyodide worker's browser script (`upgrades/pyodide-runtime/worker/main.ts`) as one self-contained
 * module, as the package ships it in `dist/browser/pyodide-worker.js`: a page loads it by URL.
 */
export async function buildPyodideWorker(root: string, options: { minify?: boolean } = {}): Promise<string> {
  const r = await esbuild.build({
    entryPoints: [join(root, 'upgrades/pyodide-runtime/worker/main.ts')],
    bundle: true,
    write: false,
    // The worker's Python ships as `.py` files, imported as their text.
    loader: { '.py': 'text' },
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: options.minify ?? true,
    external: BROWSER_EXTERNALS,
    conditions: ['browser', 'production'],
    logLevel: 'warning',
  });
  return r.outputFiles[0]!.text;
}

/** Options of {@link buildDashboard}. */
export interface BuildOptions {
  /** Project root (a checkout: the dashboard is built from its sources). */
  root: string;
  /** Where the page and bundles go. Default: `<root>/dist/dashboard`. */
  outDir?: string;
  /** Minify. Default: true. */
  minify?: boolean;
  /** Write source maps. Default: true. */
  sourcemap?: boolean;
}

/**
 * What a browser bundle of Armature leaves out: Node-only adapters are imported dynamically behind
 * an environment check and never run there; so is the MCP stdio transport, which spawns processes.
 */
export const BROWSER_EXTERNALS = ['node:*', '@modelcontextprotocol/sdk/client/stdio.js'];

/**
 * Bundles the dashboard page (`src/dashboard/main.ts`), the Pyodide worker and the confined
 * worker's script with esbuild into `outDir`, and copies the page's HTML there, so `outDir` is
 * everything `startServer` serves.
 * Resolves to the output size in bytes and the time taken.
 */
export async function buildDashboard(options: BuildOptions): Promise<{ outDir: string; bytes: number; ms: number }> {
  const outDir = options.outDir ?? join(options.root, 'dist', 'dashboard');
  const t0 = performance.now();
  const result = await esbuild.build(dashboardBuildOptions(options, outDir));
  const bytes = await finishDashboard(options, outDir, result.metafile!);
  return { outDir, bytes, ms: performance.now() - t0 };
}

/** What esbuild builds the dashboard with (the page's and the Pyodide worker's bundles). */
export function dashboardBuildOptions(options: BuildOptions, outDir: string) {
  return {
    entryPoints: {
      main: join(options.root, 'src/dashboard/main.ts'),
      // What a root's widget imports as `armature/widgets` (the page's import map): the dashboard's own Lit and base class.
      widgets: join(options.root, 'src/widgets/index.ts'),
      'pyodide-worker': join(options.root, 'upgrades/pyodide-runtime/worker/main.ts'),
    },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: options.minify ?? true,
    sourcemap: options.sourcemap ?? true,
    metafile: true,
    // Python shipped as `.py` files (the worker's prelude, ...) is imported as its text.
    loader: { '.py': 'text' },
    external: BROWSER_EXTERNALS,
    conditions: ['browser', 'production'],
    logLevel: 'warning',
  } satisfies esbuild.BuildOptions;
}

/** The rest of the dashboard beside the bundles (its page and the confined worker's script); resolves to the total size in bytes. */
export async function finishDashboard(options: BuildOptions, outDir: string, metafile: esbuild.Metafile): Promise<number> {
  await makeFolders(outDir);
  await copyFile(join(options.root, 'src/dashboard/index.html'), join(outDir, 'index.html'));
  const sandbox = await buildSandboxWorker(options.root, { minify: options.minify });
  await writeFile(join(outDir, SANDBOX_WORKER_FILE), sandbox);
  return Object.values(metafile.outputs).reduce((n, o) => n + o.bytes, 0) + sandbox.length;
}
