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
  const result = await esbuild.build({
    entryPoints: {
      main: join(options.root, 'src/dashboard/main.ts'),
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
  });
  await makeFolders(outDir);
  await copyFile(join(options.root, 'src/dashboard/index.html'), join(outDir, 'index.html'));
  const sandbox = await buildSandboxWorker(options.root, { minify: options.minify });
  await writeFile(join(outDir, SANDBOX_WORKER_FILE), sandbox);
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0) + sandbox.length;
  return { outDir, bytes, ms: performance.now() - t0 };
}
