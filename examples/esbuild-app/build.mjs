// Bundles the page with esbuild into dist/app/. Nothing of Armature is copied: the workers and
// Pyodide's files come from the server (serve.mjs, through armature/server's middleware).
import { copyFile, mkdir } from 'node:fs/promises';
import * as esbuild from 'esbuild';

await esbuild.build({
  entryPoints: ['src/main.ts'],
  outdir: 'dist/app',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  logLevel: 'info',
});
await mkdir('dist', { recursive: true });
await copyFile('index.html', 'dist/index.html');
