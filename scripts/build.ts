// `npm run build` (run by `npm pack` / `npm publish` through `prepack`): the JavaScript and type
// declarations the package ships, in dist/. Development never needs it: a checkout runs the
// TypeScript sources through tsx.
//
//   dist/node/       public index, `armature/server`, CLI and Pyodide worker for Node, with their shared chunks,
//                    and the confined children's entries (self-contained: a confined child may read only them)
//   dist/browser/    public index for browser bundlers, and self-contained Pyodide and confined workers
//   dist/dashboard/  the prebuilt dashboard `armature start` serves from an installed package
//   dist/types/      .d.ts of the public entries
//
// Dependencies stay external (the consumer's node_modules provides them), except zod in the Node
// build (see externalButZod), and except in the browser worker, which a page loads by URL and so
// must carry everything.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { buildDashboard, buildSandboxWorker } from '../src/server/build-dashboard.ts';
import { bundleNodeChild } from '../src/sandbox/node-host.ts';
import { bundlePythonChild } from '../upgrades/pyodide-runtime/process/process-link.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };

/**
 * Replaces the modules matching `filter` with one that throws `reason` when evaluated. It is
 * CommonJS-shaped so that any named import of it still links; the throw happens only if the code
 * path that imports it (lazily, behind a check) ever runs in that build.
 */
function unavailable(name: string, filter: RegExp, reason: (path: string) => string): esbuild.Plugin {
  return {
    name,
    setup(build) {
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: name }));
      build.onLoad({ filter: /.*/, namespace: name }, (args) => ({
        contents: `module.exports = {};\nthrow new Error(${JSON.stringify(`[armature] ${reason(args.path)}`)});`,
        loader: 'js',
      }));
    },
  };
}

/**
 * In browser builds, Node's built-in modules and the MCP SDK's stdio transport, which spawns
 * processes (each reached only behind an `isNode()` check).
 */
const nodeBuiltins = unavailable(
  'node-builtins',
  /^(node:|@modelcontextprotocol\/sdk\/client\/stdio\.js$)/,
  (p) => `${p} exists only in Node; this code path must not run in a browser`,
);

/** In the Node build, building the dashboard: the package ships it prebuilt, so esbuild is not a dependency. */
const dashboardBuilder = unavailable(
  'dashboard-builder',
  /\/(build|watch)-dashboard\.ts$/,
  () => 'building the dashboard needs a checkout of the sources; the package serves the prebuilt dist/dashboard/',
);

/**
 * In the Node build, every package stays external but zod, which is bundled: loading zod's own
 * ESM graph (every schema kind and locale, ~40 ms here) was most of `import('armature')`, and so
 * of every command's start and of a library's first Python result; bundled, only the zod Armature
 * uses is in `dist/node`. Schemas still meet the consumer's zod only through zod's public methods.
 */
const externalButZod: esbuild.Plugin = {
  name: 'external-but-zod',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path === 'zod' || args.path.startsWith('zod/') ? undefined : { path: args.path, external: true }));
  },
};

const common: esbuild.BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  metafile: true,
  logLevel: 'warning',
  // Chunks stay beside the entries: package-layout.ts finds the package root two folders up.
  chunkNames: '[name]-[hash]',
  // Python shipped as `.py` files (the worker's prelude, ...) is imported as its text.
  loader: { '.py': 'text' },
};

/** Bare package names imported by `result`'s output that are not `node:` built-ins. */
function externalPackages(result: esbuild.BuildResult): Set<string> {
  const names = new Set<string>();
  for (const output of Object.values(result.metafile!.outputs)) {
    for (const imp of output.imports) {
      if (!imp.external || imp.path.startsWith('node:') || imp.path.startsWith('.')) continue;
      names.add(imp.path.startsWith('@') ? imp.path.split('/').slice(0, 2).join('/') : imp.path.split('/')[0]!);
    }
  }
  return names;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

/**
 * tsc keeps `.ts` in the specifiers of emitted declarations (TypeScript #61037); consumers need
 * `.js`. That includes the module an augmentation names (`declare module '../kernel/events.ts'`,
 * how the shared contracts add their events to the event map).
 */
function rewriteDeclarationSpecifiers(text: string): string {
  return text.replace(/((?:from|import|declare module)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g, '$1$2$3.js$2');
}

const t0 = performance.now();
rmSync(dist, { recursive: true, force: true });

const [node, browser, browserWorker, dashboard] = await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: { index: 'src/index.ts', server: 'src/server/index.ts', node: 'src/platform/node-index.ts', vite: 'src/vite/index.ts', 'ai-sdk': 'src/ai-sdk/index.ts', cli: 'src/cli/main.ts', 'pyodide-worker': 'upgrades/pyodide-runtime/worker/main.ts' },
    outdir: 'dist/node',
    splitting: true,
    platform: 'node',
    target: 'node20',
    plugins: [dashboardBuilder, externalButZod],
  }),
  esbuild.build({
    ...common,
    entryPoints: { index: 'src/index.ts', 'ai-sdk': 'src/ai-sdk/index.ts', widgets: 'src/widgets/index.ts' },
    outdir: 'dist/browser',
    splitting: true,
    platform: 'browser',
    target: 'es2022',
    packages: 'external',
    plugins: [nodeBuiltins],
  }),
  esbuild.build({
    ...common,
    entryPoints: { 'pyodide-worker': 'upgrades/pyodide-runtime/worker/main.ts' },
    outdir: 'dist/browser',
    platform: 'browser',
    // Loaded by URL, not through the consumer's bundler, so it is shipped ready to serve.
    minify: true,
    target: 'es2022',
    conditions: ['browser', 'production'],
    plugins: [nodeBuiltins],
  }),
  buildDashboard({ root, outDir: join(dist, 'dashboard'), sourcemap: false }),
]);
// The confined worker's scripts: each one file that imports nothing (see package-layout.ts).
const [sandboxChild, sandboxWorker, pythonChild] = await Promise.all([bundleNodeChild(), buildSandboxWorker(root), bundlePythonChild()]);
writeFileSync(join(dist, 'node', 'sandbox-node-child.mjs'), sandboxChild);
writeFileSync(join(dist, 'browser', 'sandbox-worker.js'), sandboxWorker);
// Python's confined child and its worker (see package-layout.ts): self-contained, Pyodide's loader included.
writeFileSync(join(dist, 'node', 'python-child.mjs'), pythonChild.child);
writeFileSync(join(dist, 'node', 'python-worker.mjs'), pythonChild.worker);

const undeclared = [...new Set([...externalPackages(node), ...externalPackages(browser), ...externalPackages(browserWorker)])].filter(
  (name) => !pkg.dependencies?.[name] && !pkg.peerDependencies?.[name],
);
if (undeclared.length) throw new Error(`[build] dist/ imports ${undeclared.join(', ')}, missing from "dependencies" (or the optional "peerDependencies") in package.json: add them there`);

const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
if (tsc.status !== 0) throw new Error(`[build] tsc could not emit the declarations:\n${tsc.stdout}${tsc.stderr}`);
for (const file of listFiles(join(dist, 'types')).filter((f) => f.endsWith('.d.ts'))) {
  writeFileSync(file, rewriteDeclarationSpecifiers(readFileSync(file, 'utf8')));
}

// The summary goes to stderr: `npm pack --json` runs this through `prepack` and its stdout must stay JSON.
const files = listFiles(dist);
const kb = files.reduce((n, f) => n + statSync(f).size, 0) / 1024;
console.error(`Built dist/ in ${(performance.now() - t0).toFixed(0)} ms: ${files.length} files, ${kb.toFixed(0)} KB (dashboard ${(dashboard.bytes / 1024).toFixed(0)} KB).`);
for (const dir of ['node', 'browser', 'dashboard', 'types']) {
  const inDir = files.filter((f) => relative(dist, f).startsWith(`${dir}/`));
  console.error(`  dist/${dir}/: ${inDir.length} files, ${(inDir.reduce((n, f) => n + statSync(f).size, 0) / 1024).toFixed(0)} KB`);
}
