import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dashboardDir, fromSources, packageRoot, pyodideWorkerScript, sandboxBrowserWorker, sandboxNodeChild, tsWorkerBootstrap } from './package-layout.ts';

// The built layout (dist/node, dist/browser) is checked on the installed tarball by test/e2e/package.test.ts.
test('from the sources, the layout points at the checkout: package root, worker/main.ts and the tsx bootstrap', () => {
  assert.equal(fromSources, true);
  assert.equal(JSON.parse(readFileSync(fileURLToPath(new URL('package.json', packageRoot)), 'utf8')).name, 'armature');
  assert.ok(existsSync(new URL('modules/upgrades.json', packageRoot)));
  assert.equal(fileURLToPath(pyodideWorkerScript), fileURLToPath(new URL('upgrades/pyodide-runtime/worker/main.ts', packageRoot)));
  assert.ok(existsSync(pyodideWorkerScript));
  assert.ok(existsSync(tsWorkerBootstrap));
  assert.equal(fileURLToPath(dashboardDir), fileURLToPath(new URL('dist/dashboard/', packageRoot)));
  // The confined worker's scripts are bundled on first use from the sources.
  assert.equal(sandboxNodeChild, undefined);
  assert.equal(sandboxBrowserWorker, undefined);
});
