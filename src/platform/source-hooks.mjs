// What running Armature from its TypeScript sources needs in a Node thread: tsx (TypeScript), and
// the `.py` hook (Python files imported as text, as the builds' esbuild `text` loader does).
// Imported by everything that runs the sources: `node --import ./src/platform/source-hooks.mjs`
// (the test runner, the build, the benchmarks), bin/armature.js in a checkout, and the bootstrap
// of every worker thread (a worker does not inherit its parent's hooks).
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

registerTsx();
// After tsx: the hook registered last runs first, so `.py` files never reach tsx.
register('./python-text-hook.mjs', import.meta.url);
