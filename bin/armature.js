#!/usr/bin/env node
// Armature's CLI. Which code runs:
// - a checkout (src/ is present): the TypeScript sources, compiled on the fly by tsx (with `.py`
//   files imported as text, see src/platform/source-hooks.mjs), so hacking on Armature needs no build step;
// - an installed package (it ships no src/), or ARMATURE_BUILT=1: the built JavaScript in dist/node/.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/node/cli.js', import.meta.url);
const useBuilt = process.env.ARMATURE_BUILT === '1' || !existsSync(sources);

// A reader that goes away early (`armature tools | head -3`) is not an error: what is left to
// write is dropped, and the command ends with its own exit code instead of a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
  });
}

let main;
if (useBuilt) {
  if (!existsSync(built)) {
    console.error(`armature: the built CLI (dist/node/cli.js) is missing: run 'npm run build' in the checkout, or unset ARMATURE_BUILT to run the sources`);
    process.exit(1);
  }
  ({ main } = await import(built.href));
} else {
  // tsx for the TypeScript, and `.py` files as text (what the build's esbuild does for dist/).
  await import(new URL('../src/platform/source-hooks.mjs', import.meta.url).href);
  ({ main } = await import(sources.href));
}
process.exitCode = await main(process.argv.slice(2));
