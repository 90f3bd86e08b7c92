// The dashboard's watching build over a small project of its own (a page whose loader imports
// `upgrades/<folder>/index.ts` as the real one does): an upgrade added while it runs is bundled by
// the rebuild; the bundle made before it answers with esbuild's own error, which the loader
// explains (`notInBundle`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { notInBundle } from '../kernel/boot/loader.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { until } from '../../test/helpers/until.ts';
import { watchDashboard, type DashboardBuild } from './watch-dashboard.ts';

/** The page's module of the build in `outDir` as it is now (a copy: a module, once imported, is never loaded again). */
function importBuild(outDir: string, name: string): Promise<unknown> {
  const copy = `${outDir}-${name}`;
  cpSync(outDir, copy, { recursive: true });
  return import(pathToFileURL(join(copy, 'main.js')).href);
}

function project(): string {
  const root = tempDir('watch-dashboard');
  const file = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's source, as text, holds the loader's template import
  file('src/dashboard/main.ts', 'export const load = (folder: string) => import(`../../upgrades/${folder}/index.ts`);\n');
  file('src/dashboard/index.html', '<!doctype html><script type="module" src="./main.js"></script>\n');
  file('src/sandbox/browser-worker.ts', 'export {};\n');
  file('src/widgets/index.ts', 'export {};\n');
  file('upgrades/pyodide-runtime/worker/main.ts', 'export {};\n');
  file('upgrades/first/index.ts', "export const metadata = { id: 'First' };\n");
  // The bundles are ES modules, imported here as Node would import a page's.
  file('package.json', '{ "type": "module" }\n');
  return root;
}

test('an upgrade added while the server runs is in the rebuilt bundle; the bundle before it says why it is not', async () => {
  const root = project();
  const outDir = join(root, 'dist/dashboard');
  const builds: DashboardBuild[] = [];
  const watch = await watchDashboard({ root, outDir, minify: false, sourcemap: false, onBuild: (b) => builds.push(b) });
  try {
    assert.deepEqual(builds.map((b) => [b.first, b.errors]), [[true, []]]);
    const before = (await importBuild(outDir, 'before')) as { load(f: string): Promise<{ metadata: { id: string } }> };
    assert.equal((await before.load('first')).metadata.id, 'First');
    // esbuild's map of the imports throws at once (not a rejection): the loader's try covers both.
    const missing = await Promise.resolve().then(() => before.load('added')).catch((e: unknown) => e);
    const explained = notInBundle(missing, 'upgrades/added/index.ts');
    assert.equal(explained?.code, 'NOT_IN_BUNDLE', String(missing));
    assert.match(explained!.message, /upgrades\/added\/index\.ts is not in this page's bundle: the bundle was built before the upgrade was added\. Reload the page: npm start/);
    assert.equal(notInBundle(new Error('SyntaxError: x'), 'upgrades/added/index.ts'), undefined);

    mkdirSync(join(root, 'upgrades/added'));
    writeFileSync(join(root, 'upgrades/added/index.ts'), "export const metadata = { id: 'Added' };\n");
    await until('the rebuild', () => builds.length >= 2, 20_000);
    assert.deepEqual([builds.at(-1)!.first, builds.at(-1)!.errors], [false, []]);
    const after = (await importBuild(outDir, 'after')) as typeof before;
    assert.equal((await after.load('added')).metadata.id, 'Added');
  } finally {
    await watch.dispose();
  }
});
