// The package as a user gets it: `npm pack` (which builds dist/ through `prepack`), the tarball
// installed into an empty project, then used every way the README promises: plain `node`, a
// TypeScript consumer on `module: nodenext` and on `moduleResolution: bundler`, a browser bundle
// made with esbuild and run in Chromium, and the `armature` bin. Dependencies install from the npm
// cache the checkout's own install filled (`--prefer-offline`), falling back to the registry.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import type { Browser } from 'puppeteer-core';
import { checkoutRoot as root, devDependencyVersion, packAndInstall, runSync as run, type PackedInstall } from '../helpers/packed-install.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { launchChromium } from '../helpers/dashboard-driver.ts';

let pkg: PackedInstall;
const project = tempDir('package');

/** Every file under `dir` with its size and modification time, to prove nothing was written there. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      const info = statSync(full);
      out.set(relative(dir, full), `${info.size} ${info.mtimeMs}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out;
}

/** Starts `cmd`, resolves with the child once a stdout line matches `ready` (and that match). */
function startUntil(cmd: string, args: string[], cwd: string, ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} ${args.join(' ')} printed no line matching ${ready} within 120 s:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} ${args.join(' ')} exited with ${code} before printing ${ready}:\n${output}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

before(() => {
  pkg = packAndInstall(project, [`@types/node@${devDependencyVersion('@types/node')}`]);
  console.log(`npm pack (build included) ${pkg.timings.packMs.toFixed(0)} ms, npm install of the tarball ${pkg.timings.installMs.toFixed(0)} ms`);
});

test('the tarball ships the built code, manifests, blueprints, README and LICENSE, and nothing for development', () => {
  const files = pkg.files;
  for (const needed of [
    'package.json',
    'README.md',
    'LICENSE',
    'bin/armature.js',
    'dist/node/index.js',
    'dist/node/cli.js',
    'dist/node/server.js',
    'dist/node/pyodide-worker.js',
    'dist/browser/index.js',
    'dist/browser/pyodide-worker.js',
    'dist/dashboard/index.html',
    'dist/dashboard/main.js',
    'dist/dashboard/pyodide-worker.js',
    'dist/types/src/index.d.ts',
    'dist/types/src/server/index.d.ts',
    'modules/upgrades.json',
    'modules/personas/default.json',
    'blueprints/README.md',
  ])
    assert.ok(files.includes(needed), `the tarball lacks ${needed}`);
  const unwanted = files.filter((f) => /^(src|test|bench|scripts|docs|\.ci|upgrades)\/|\.test\.|\.ts$|^tsconfig|^web-test-runner/.test(f) && !f.endsWith('.d.ts'));
  assert.deepEqual(unwanted, []);
  // Declarations name .js files, which exist beside them: a consumer never meets a .ts specifier.
  for (const f of files.filter((p) => p.endsWith('.d.ts'))) {
    assert.doesNotMatch(readFileSync(join(pkg.installed, f), 'utf8'), /from\s+['"]\.{1,2}\/[^'"]*\.ts['"]/, `${f} imports a .ts path`);
  }
});

test('plain node imports the package and boots a persona whose tools work', () => {
  writeFileSync(
    join(project, 'app.mjs'),
    `import { boot } from 'armature';
const sys = await boot({ persona: 'default', dataDir: 'app-data' });
const written = await sys.tools.executeTool('write_file', { path: 'notes/a.txt', content: 'from node' });
const read = await sys.tools.executeTool('read_file', { path: 'notes/a.txt' });
console.log(JSON.stringify({ modules: sys.modules.map((m) => [m.id, m.state]), written: written.ok, content: read.ok ? read.value.content : read.error }));
await sys.dispose();
`,
  );
  const r = run(process.execPath, ['app.mjs'], { cwd: project });
  assert.equal(r.code, 0, r.err);
  const result = JSON.parse(r.out);
  // Every upgrade of the default persona, as the installed package's own manifest lists it, loads.
  const persona = JSON.parse(readFileSync(join(project, 'node_modules/armature/modules/personas/default.json'), 'utf8')) as { upgrades: string[] };
  assert.deepEqual(result.modules, persona.upgrades.map((id) => [id, 'loaded']));
  assert.deepEqual([result.written, result.content], [true, 'from node']);
});

test('the installed bin runs Python: armature run -c prints 1 and exits 0', () => {
  const r = run(pkg.bin, ['run', '-c', 'print(1)'], { cwd: project });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '1\n');
});

test('a TypeScript consumer type-checks on module nodenext and on moduleResolution bundler', () => {
  writeFileSync(
    join(project, 'consumer.ts'),
    `import { boot, ArmatureError, type ArmatureSystem, type ToolResult } from 'armature';
import { startServer, type RunningServer } from 'armature/server';

const sys: ArmatureSystem = await boot({ persona: 'default', dataDir: '.data' });
const listed: ToolResult<{ count: number }> = await sys.tools.executeTool('list_files', {});
if (!listed.ok) throw new ArmatureError(listed.error.code, listed.error.message);
const count: number = listed.value.count;
sys.bus.on('tool:finished', (e) => console.log(e.name, e.ok, e.durationMs.toFixed(1), count));
// @ts-expect-error event names come from the one event map
sys.bus.on('tool:finishd', () => {});
const server: RunningServer = await startServer({ port: 0 });
await server.close();
await sys.dispose();
`,
  );
  const base = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  for (const [name, options] of [
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ] as const) {
    writeFileSync(join(project, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...base, ...options }, files: ['consumer.ts'] }));
    const r = run(process.execPath, [tsc, '-p', `tsconfig.${name}.json`], { cwd: project });
    assert.equal(r.code, 0, `${name}: ${r.out}${r.err}`);
  }
});

test("the events the shared contracts declare (python:*, agent:*, change:*) are typed for the package's users", () => {
  // They are declared by augmentation in src/contracts/, not in the kernel's event map: the
  // package's declarations must still carry them, on both resolutions.
  writeFileSync(
    join(project, 'events-consumer.ts'),
    `import { boot, type AgentModelRef, type PythonStatus } from 'armature';

const sys = await boot({ persona: 'default', dataDir: '.data' });
sys.bus.on('python:stdout', (e) => console.log(e.runId, e.chunk.length));
sys.bus.on('python:state', (e) => { const s: PythonStatus = e.status; console.log(s); });
sys.bus.on('python:pool', (e) => console.log(e.workers + e.queued));
sys.bus.on('agent:run-finished', (e) => console.log(e.steps, e.usage.inputTokens, e.reason));
sys.bus.on('agent:settings-changed', (e) => { const m: AgentModelRef | undefined = e.model; console.log(m?.provider, e.hasKey); });
sys.bus.on('change:pending', (e) => console.log(e.change.id, e.change.status));
// @ts-expect-error a payload field the event does not have
sys.bus.on('python:stdout', (e) => e.chunks);
// @ts-expect-error an event name none of them declares
sys.bus.on('agent:run-finishd', () => {});
await sys.dispose();
`,
  );
  const base = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  for (const [name, options] of [
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ] as const) {
    writeFileSync(join(project, `tsconfig.events-${name}.json`), JSON.stringify({ compilerOptions: { ...base, ...options }, files: ['events-consumer.ts'] }));
    const r = run(process.execPath, [tsc, '-p', `tsconfig.events-${name}.json`], { cwd: project });
    assert.equal(r.code, 0, `${name}: ${r.out}${r.err}`);
  }
});

test('a browser bundle of the package builds with esbuild and runs Python in Chromium', async () => {
  writeFileSync(
    join(project, 'browser-app.ts'),
    `import { boot } from 'armature';
const sys = await boot({ persona: 'default', config: { PyodideRuntime: { indexURL: new URL('/pyodide/', location.href).href } } });
const result = await sys.tools.executeTool('execute_python', { code: 'print(1)\\n6 * 7' });
(window as unknown as { done: unknown }).done = { modules: sys.modules.map((m) => m.state), result };
`,
  );
  const web = join(project, 'web');
  const built = await esbuild.build({
    absWorkingDir: project,
    entryPoints: ['browser-app.ts'],
    outdir: web,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    metafile: true,
    logLevel: 'silent',
  });
  assert.deepEqual([built.errors, built.warnings], [[], []]);
  const externals = Object.values(built.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
  assert.deepEqual(externals, []);
  // The worker is loaded by URL, not through the bundler: the README says to copy it next to the bundle.
  copyFileSync(join(pkg.installed, 'dist/browser/pyodide-worker.js'), join(web, 'pyodide-worker.js'));
  writeFileSync(
    join(project, 'serve.mjs'),
    `import { startServer } from 'armature/server';
const server = await startServer({ outDir: 'web', port: 0, html: '<!doctype html><meta charset="utf-8"><script type="module" src="/dist/browser-app.js"></script>' });
console.log('serving ' + server.url);
process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
`,
  );
  const server = await startUntil(process.execPath, ['serve.mjs'], project, /serving (\S+)/);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(server.match[1]!, { waitUntil: 'load' });
    await page.waitForFunction(() => (window as unknown as { done?: unknown }).done !== undefined, { timeout: 120_000 }).catch((e: Error) => {
      throw new Error(`${e.message}; page errors: ${errors.join('\n')}`);
    });
    const done = (await page.evaluate(() => (window as unknown as { done: unknown }).done)) as {
      modules: string[];
      result: { ok: boolean; value?: { value: unknown; stdout: string } };
    };
    const persona = JSON.parse(readFileSync(join(project, 'node_modules/armature/modules/personas/default.json'), 'utf8')) as { upgrades: string[] };
    assert.deepEqual(done.modules, persona.upgrades.map(() => 'loaded'));
    assert.equal(done.result.ok, true, JSON.stringify(done.result));
    assert.deepEqual([done.result.value!.stdout, done.result.value!.value], ['1\n', 42]);
  } finally {
    await browser?.close();
    await stop(server.child);
  }
});

test('armature start from the installed copy serves the prebuilt dashboard and writes nothing inside node_modules', async () => {
  const before = snapshot(join(project, 'node_modules'));
  const started = await startUntil(pkg.bin, ['start', '--port', '0'], project, /Armature dashboard: (\S+)/);
  try {
    assert.doesNotMatch(started.output(), /Building/);
    const url = started.match[1]!;
    for (const path of ['', 'dist/main.js', 'dist/pyodide-worker.js', '__armature/project.json']) {
      const res = await fetch(new URL(path, url));
      assert.equal(res.status, 200, `GET /${path}`);
      assert.equal(res.headers.get('cross-origin-embedder-policy'), 'require-corp');
      await res.arrayBuffer();
    }
  } finally {
    await stop(started.child);
  }
  const afterwards = snapshot(join(project, 'node_modules'));
  const changed = [...new Set([...before.keys(), ...afterwards.keys()])].filter((p) => before.get(p) !== afterwards.get(p));
  assert.deepEqual(changed, []);
});

test('in the checkout the bin runs the sources (start builds the dashboard first); ARMATURE_BUILT=1 runs dist/', async () => {
  const data = tempDir('package-checkout');
  const sources = await startUntil(process.execPath, [join(root, 'bin/armature.js'), 'start', '--port', '0'], data, /Armature dashboard: (\S+)/);
  await stop(sources.child);
  assert.match(sources.output(), /^Building the dashboard with esbuild…\nBuilt \d+ KB in \d+ ms\.\n/);
  const built = await startUntil(process.execPath, [join(root, 'bin/armature.js'), 'start', '--port', '0'], data, /Armature dashboard: (\S+)/, { ARMATURE_BUILT: '1' });
  await stop(built.child);
  assert.match(built.output(), /^Armature dashboard: /);
  const tools = run(process.execPath, [join(root, 'bin/armature.js'), 'tools', '--json', '--data', data], { cwd: data, env: { ...process.env, ARMATURE_BUILT: '1' } });
  assert.equal(tools.code, 0, tools.err);
  assert.ok((JSON.parse(tools.out) as { name: string }[]).some((t) => t.name === 'execute_python'));
});

