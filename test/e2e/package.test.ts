// The package as a user gets it: `npm pack` (which builds dist/ through `prepack`), the tarball
// installed into an empty project — without its optional peers first — then used every way the
// README promises: plain `node`, a TypeScript consumer on `module: nodenext` and on
// `moduleResolution: bundler`, a browser bundle made with esbuild and run in Chromium, and the
// `armature` bin; what needs a peer says which to install; then, with the AI SDK installed, the
// `armature/ai-sdk` export driven by the SDK's own mock model. One tarball, one project, for every
// test here. Dependencies install from the npm cache the checkout's own install filled
// (`--prefer-offline`), falling back to the registry.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import * as esbuild from 'esbuild';
import type { Browser } from 'puppeteer-core';
import { checkoutRoot as root, devDependencyVersion, packAndInstall, runSync as run, type PackedInstall } from '../helpers/packed-install.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { launchChromium } from '../helpers/dashboard-driver.ts';
import { OPTIONAL_PEERS } from '../../src/kernel/optional-peer.ts';
import { API_ENTRIES, generateApiReference } from '../../scripts/api-docs.ts';

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
  // Colours off, and any that come anyway stripped: vite paints the port apart from the host.
  const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // A child that never got ready is stopped here: left running, it would keep this file's process alive.
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} printed no line matching ${ready} within 120 s:\n${output}`));
    }, 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(stripVTControlCharacters(output));
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

/** A user's strict TypeScript settings, library checks included, and the compiler that applies them. */
const base = { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
const tsc = join(root, 'node_modules/typescript/bin/tsc');

/**
 * Type-checks `file` of the consumer project as a user's TypeScript would, strictly and with
 * `skipLibCheck: false`, once on `module: nodenext` and once on `moduleResolution: bundler`.
 */
function typecheckConsumer(file: string, prefix = ''): void {
  for (const [name, options] of [
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ] as const) {
    const config = `tsconfig.${prefix}${name}.json`;
    writeFileSync(join(project, config), JSON.stringify({ compilerOptions: { ...base, ...options }, files: [file] }));
    const r = run(process.execPath, [tsc, '-p', config], { cwd: project });
    assert.equal(r.code, 0, `${file} on ${name}: ${r.out}${r.err}`);
  }
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
    'dist/node/node.js',
    'dist/node/ai-sdk.js',
    'dist/browser/ai-sdk.js',
    'dist/node/pyodide-worker.js',
    'dist/browser/index.js',
    'dist/browser/pyodide-worker.js',
    'dist/dashboard/index.html',
    'dist/dashboard/main.js',
    'dist/dashboard/pyodide-worker.js',
    'dist/types/src/index.d.ts',
    'dist/types/src/server/index.d.ts',
    'dist/types/src/ai-sdk/index.d.ts',
    'dist/types/src/platform/node-index.d.ts',
    'modules/upgrades.json',
    'modules/personas/default.json',
    'blueprints/README.md',
    'examples/recorded.json',
    'examples/sum-files/recording.jsonl',
    'examples/sum-files/README.md',
  ])
    assert.ok(files.includes(needed), `the tarball lacks ${needed}`);
  const unwanted = files.filter((f) => /^(src|test|bench|scripts|docs|\.ci|upgrades)\/|\.test\.|\.ts$|^tsconfig|^web-test-runner/.test(f) && !f.endsWith('.d.ts'));
  assert.deepEqual(unwanted, []);
  // Declarations name .js files, which exist beside them: a consumer never meets a .ts specifier.
  for (const f of files.filter((p) => p.endsWith('.d.ts'))) {
    assert.doesNotMatch(readFileSync(join(pkg.installed, f), 'utf8'), /from\s+['"]\.{1,2}\/[^'"]*\.ts['"]/, `${f} imports a .ts path`);
  }
});

test('the install leaves the optional peers out: no AI SDK, no MCP SDK, nor what they pull in', () => {
  const installed = (name: string) => existsSync(join(project, 'node_modules', name, 'package.json'));
  const absent = ['ai', '@ai-sdk/openai', '@ai-sdk/provider-utils', '@modelcontextprotocol/sdk', 'express', 'hono', 'ajv'].filter((n) => installed(n));
  assert.deepEqual(absent, []);
  const pkgJson = JSON.parse(readFileSync(join(pkg.installed, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional: boolean }> };
  assert.deepEqual(Object.keys(pkgJson.peerDependencies).sort(), Object.keys(OPTIONAL_PEERS).sort());
  assert.ok(Object.values(pkgJson.peerDependenciesMeta).every((m) => m.optional));
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

test('without the peers, what needs one names the package to install; the rest works', () => {
  writeFileSync(
    join(project, 'no-ai.mjs'),
    `import { createArmatureTools } from 'armature/ai-sdk';
try {
  await createArmatureTools({ dataDir: 'app-data' });
  console.log('no error');
} catch (e) {
  console.log(JSON.stringify({ code: e.code, message: e.message }));
}
`,
  );
  const r = run(process.execPath, ['no-ai.mjs'], { cwd: project });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), {
    code: 'PEER_MISSING',
    message: `[armature/ai-sdk] needs the package ai, which is not installed: npm install ai@${OPTIONAL_PEERS.ai}`,
  });
  const mcp = run(pkg.bin, ['mcp'], { cwd: project, input: '' });
  assert.equal(mcp.code, 1, mcp.err);
  assert.match(mcp.err, /armature: \[armature mcp\] needs the package @modelcontextprotocol\/sdk, which is not installed: npm install @modelcontextprotocol\/sdk@\^1\./);
  const agent = run(pkg.bin, ['agent', '--model', 'openai-compatible:any', '--base-url', 'http://127.0.0.1:9/v1', 'hello'], { cwd: project });
  assert.equal(agent.code, 1, agent.err);
  assert.match(agent.err, /\[Agent\] needs the package @ai-sdk\/openai-compatible, which is not installed: npm install @ai-sdk\/openai-compatible@\^2\./);
});

test('the installed bin runs Python: armature run -c prints 1 and exits 0', () => {
  const r = run(pkg.bin, ['run', '-c', 'print(1)'], { cwd: project });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '1\n');
});

test('armature init writes a root whose own test passes against the installed package; the built CLI boots it with --root', () => {
  const init = run(pkg.bin, ['init', 'starter'], { cwd: project });
  assert.equal(init.code, 0, init.err);
  const starter = join(project, 'starter');
  // Without NODE_TEST_CONTEXT: inside this runner's children, a nested `node --test` would report to it instead of printing.
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  const own = run(process.execPath, ['--test', '--test-reporter=tap'], { cwd: starter, env });
  assert.equal(own.code, 0, `${own.out}${own.err}`);
  assert.match(own.out, /# pass 4\n# fail 0/);
  const booted = run(pkg.bin, ['--root', 'starter', 'boot', '--persona', 'tally', '--json', '--data', 'starter-data'], { cwd: project });
  assert.equal(booted.code, 0, booted.err);
  assert.deepEqual(
    (JSON.parse(booted.out) as { modules: { id: string; state: string }[] }).modules.map((m) => [m.id, m.state]),
    ['ToolRunner', 'Workspace', 'PyodideRuntime', 'PythonTool', 'Tally'].map((id) => [id, 'loaded']),
  );
});

test('a TypeScript consumer type-checks on module nodenext and on moduleResolution bundler', () => {
  writeFileSync(
    join(project, 'consumer.ts'),
    `import { boot, ArmatureError, type ArmatureSystem, type ToolResult, type WorkspaceApi } from 'armature';
import { startServer, type RunningServer } from 'armature/server';
import { createNodePlatform } from 'armature/node';

const sys: ArmatureSystem = await boot({ persona: 'default', dataDir: '.data' });
const listed: ToolResult<{ count: number }> = await sys.tools.executeTool('list_files', {});
if (!listed.ok) throw new ArmatureError(listed.error.code, listed.error.message);
const count: number = listed.value.count;
sys.bus.on('tool:finished', (e) => console.log(e.name, e.ok, e.durationMs.toFixed(1), count));
// @ts-expect-error event names come from the one event map
sys.bus.on('tool:finishd', () => {});
// Typed by id, by tool name and by upgrade; a root's upgrade adds itself through the package.
const workspace: WorkspaceApi = await sys.resolve('Workspace');
const read = await sys.tools.executeTool('read_file', { path: 'notes/a.txt' });
const text: string = read.ok ? read.value.content : read.error.message;
// @ts-expect-error a misspelt option of a built-in upgrade
await boot({ config: { PyodideRuntime: { isolaton: 'process' } } });
const mine: ArmatureSystem = await boot({ persona: 'tally', config: { Tally: { start: 1 } }, platform: createNodePlatform({ root: 'starter', dataDir: '.data' }) });
const tally = await mine.resolve('Tally');
console.log(workspace.list().length, text, tally.counts());
await mine.dispose();
const server: RunningServer = await startServer({ port: 0, root: 'starter' });
await server.close();
await sys.dispose();

declare module 'armature' {
  interface ArmatureServices {
    Tally: { counts(): Record<string, number> };
  }
  interface ArmatureConfig {
    Tally: { start?: number };
  }
}
`,
  );
  typecheckConsumer('consumer.ts');
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
  typecheckConsumer('events-consumer.ts', 'events-');
});

test('a browser bundle of the package builds with esbuild and runs Python in Chromium, served by startServer with boot()\'s defaults', async () => {
  writeFileSync(
    join(project, 'browser-app.ts'),
    `import { boot } from 'armature';
const sys = await boot({ persona: 'default' });
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
  // Only the optional peers that are not installed stay outside the bundle, to fail (and say so) if ever used.
  const externals = Object.values(built.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
  assert.deepEqual(externals.filter((p) => !Object.keys(OPTIONAL_PEERS).some((peer) => p === peer || p.startsWith(`${peer}/`))), []);
  // Nothing copied, nothing configured: the package's startServer serves the worker and Pyodide's files where boot() looks by default.
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

test("armature start --root shows the root's upgrade with its own card on the prebuilt dashboard, in Chromium", async () => {
  const started = await startUntil(pkg.bin, ['--root', 'starter', 'start', '--persona', 'tally', '--port', '0'], project, /Armature dashboard: (\S+)/);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(started.match[1]!, { waitUntil: 'load' });
    await page.waitForFunction(() => (globalThis as { armature?: unknown }).armature !== undefined, { timeout: 60_000 }).catch((e: Error) => {
      throw new Error(`${e.message}; page errors: ${errors.join('\n')}`);
    });
    const called = await page.evaluate(async () => {
      const sys = (globalThis as unknown as { armature: { tools: { executeTool(n: string, a: unknown): Promise<{ ok: boolean }> } } }).armature;
      return (await sys.tools.executeTool('tally_add', { name: 'apples', by: 2 })).ok;
    });
    assert.equal(called, true);
    // The card is the root's own widget.mjs, importing `armature/widgets` through the page's import map.
    const card = await page.waitForFunction(
      () => {
        const widget = document.querySelector('armature-dashboard')?.shadowRoot?.querySelector('tally-widget');
        const text = widget?.shadowRoot?.textContent ?? '';
        return /2 counts/.test(text) && /apples/.test(text) ? text.replace(/\s+/g, ' ') : false;
      },
      { timeout: 30_000 },
    );
    assert.match(String(await card.jsonValue()), /Tally.*2 counts.*1 name.*apples\s*2/);
    assert.deepEqual(errors, []);
  } finally {
    await browser?.close();
    await stop(started.child);
  }
});

test('in the checkout the bin runs the sources (start builds the dashboard first); ARMATURE_BUILT=1 runs dist/', async () => {
  const data = tempDir('package-checkout');
  const sources = await startUntil(process.execPath, [join(root, 'bin/armature.js'), 'start', '--port', '0'], data, /Armature dashboard: (\S+)/);
  await stop(sources.child);
  assert.match(sources.output(), /^Building the dashboard with esbuild…\nBuilt \d+ KB in \d+ ms; a change to its files \(a new upgrade too\) rebuilds it while the server runs\.\n/);
  const built = await startUntil(process.execPath, [join(root, 'bin/armature.js'), 'start', '--port', '0'], data, /Armature dashboard: (\S+)/, { ARMATURE_BUILT: '1' });
  await stop(built.child);
  assert.match(built.output(), /^Armature dashboard: /);
  const tools = run(process.execPath, [join(root, 'bin/armature.js'), 'tools', '--json', '--data', data], { cwd: data, env: { ...process.env, ARMATURE_BUILT: '1' } });
  assert.equal(tools.code, 0, tools.err);
  assert.ok((JSON.parse(tools.out) as { name: string }[]).some((t) => t.name === 'execute_python'));
});


test('with the AI SDK installed, armature/ai-sdk drives execute_python and call_tool under the SDK\'s own mock model, and type-checks, as do the README\'s examples', () => {
  // @types/json-schema: the AI SDK's own declarations (@ai-sdk/provider) import it, so any strict
  // consumer of the SDK (skipLibCheck: false) needs it, with or without Armature.
  const add = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `ai@${devDependencyVersion('ai')}`, `@ai-sdk/openai@${devDependencyVersion('@ai-sdk/openai')}`, '@types/json-schema@7.0.15'], { cwd: project });
  assert.equal(add.code, 0, add.err);
  writeFileSync(
    join(project, 'ai-app.ts'),
    `import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createArmatureTools } from 'armature/ai-sdk';

const armature = await createArmatureTools({ dataDir: 'ai-data' });
const code = 'call_tool("write_file", {"path": "a.txt", "content": "abc"})\\nprint(call_tool("read_file", {"path": "a.txt"})["content"])';
let turn = 0;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
const model = new MockLanguageModelV3({
  doGenerate: async () =>
    turn++ === 0
      ? { content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'execute_python', input: JSON.stringify({ code }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] }
      : { content: [{ type: 'text', text: 'read it' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
});
const result = await generateText({ model, system: armature.instructions, tools: armature.tools, prompt: 'go', stopWhen: stepCountIs(3) });
console.log(JSON.stringify({ text: result.text, output: result.steps[0]?.toolResults[0]?.output, teaches: armature.instructions.includes('call_tool') }));
await armature.dispose();
`,
  );
  typecheckConsumer('ai-app.ts', 'ai-');
  // The README's examples, as a newcomer pastes them, type-check against the installed package.
  const examples = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(examples.length >= 2, 'the README has its library and agent examples');
  examples.forEach((code, i) => writeFileSync(join(project, `readme-${i}.ts`), `${code}\nexport {};\n`));
  writeFileSync(
    join(project, 'tsconfig.readme.json'),
    JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2024', 'esnext.disposable', 'dom'] }, files: examples.map((_, i) => `readme-${i}.ts`) }),
  );
  const readme = run(process.execPath, [tsc, '-p', 'tsconfig.readme.json'], { cwd: project });
  assert.equal(readme.code, 0, `README examples: ${readme.out}${readme.err}`);
  // Run as plain JavaScript: the same file, its types stripped by esbuild.
  const js = esbuild.transformSync(readFileSync(join(project, 'ai-app.ts'), 'utf8'), { loader: 'ts', format: 'esm' }).code;
  writeFileSync(join(project, 'ai-app.mjs'), js);
  const r = run(process.execPath, ['ai-app.mjs'], { cwd: project });
  assert.equal(r.code, 0, r.err);
  const out = JSON.parse(r.out) as { text: string; output: { ok: boolean; value: { stdout: string } }; teaches: boolean };
  assert.deepEqual([out.text, out.output.ok, out.output.value.stdout, out.teaches], ['read it', true, 'abc\n', true]);
});

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * examples/<name> copied into the project, beside the installed package, with the bundler the
 * checkout has linked into the project's node_modules (as `npm install` of the example would add it).
 */
function exampleApp(name: string, bundler: 'esbuild' | 'vite'): string {
  const dir = join(project, name);
  cpSync(join(root, 'examples', name), dir, { recursive: true, filter: (src) => !/node_modules|[\\/]dist$/.test(src) });
  const link = join(project, 'node_modules', bundler);
  if (!existsSync(link)) symlinkSync(join(root, 'node_modules', bundler), link, 'dir');
  return dir;
}

test('the installed bin replays a shipped example with no model and no key (the AI SDK installed)', () => {
  const r = run(pkg.bin, ['agent', '--replay', 'examples/sum-files', '--data', 'replay-data'], { cwd: project });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /The three files add up to 610\.60/);
  assert.match(r.err, /✓ Replayed 1 turn of examples\/sum-files\/recording\.jsonl: every tool result matched the recording/);
});

/** Opens `url` in Chromium and waits for the example page's result. */
async function runExamplePage(url: string): Promise<{ modules: [string, string][]; result: { ok: boolean; value?: { value: unknown; stdout: string }; error?: unknown } }> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => (globalThis as { armatureExample?: unknown }).armatureExample !== undefined, { timeout: 120_000 }).catch((e: Error) => {
      throw new Error(`${e.message}; page errors: ${errors.join('\n')}`);
    });
    const isolated = await page.evaluate(() => crossOriginIsolated);
    assert.equal(isolated, true, 'the page is cross-origin isolated: call_tool uses shared memory');
    return (await page.evaluate(() => (globalThis as unknown as { armatureExample: unknown }).armatureExample)) as never;
  } finally {
    await browser.close();
  }
}

function assertExampleRan(done: Awaited<ReturnType<typeof runExamplePage>>): void {
  assert.deepEqual(done.modules, ['ToolRunner', 'Workspace', 'PyodideRuntime', 'PythonTool'].map((id) => [id, 'loaded']));
  assert.equal(done.result.ok, true, JSON.stringify(done.result));
  assert.deepEqual([done.result.value!.stdout, done.result.value!.value], ['Hello from Python\n', 17]);
}

test('examples/esbuild-app: built with esbuild, served by node:http with armatureMiddleware, runs Python whose call_tool answers, in Chromium', async () => {
  const app = exampleApp('esbuild-app', 'esbuild');
  const built = run(process.execPath, ['build.mjs'], { cwd: app });
  assert.equal(built.code, 0, built.err);
  const server = await startUntil(process.execPath, ['serve.mjs'], app, /(http:\/\/127\.0\.0\.1:\d+\/)/, { PORT: '0' });
  try {
    assertExampleRan(await runExamplePage(server.match[1]!));
    // The installed middleware serves both workers with their policies (the confined one for agent-made JavaScript too).
    for (const [path, csp] of [['__armature/pyodide-worker.js', /wasm-unsafe-eval/], ['__armature/sandbox-worker.js', /script-src blob:/]] as const) {
      const res = await fetch(new URL(path, server.match[1]!));
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-security-policy') ?? '', csp);
      assert.ok((await res.text()).length > 1000);
    }
  } finally {
    await stop(server.child);
  }
});

test('examples/vite-app: vite build with the armature plugin, then vite preview, then the dev server, each runs Python whose call_tool answers, in Chromium', async () => {
  const app = exampleApp('vite-app', 'vite');
  const vite = join(root, 'node_modules/vite/bin/vite.js');
  const built = run(process.execPath, [vite, 'build'], { cwd: app });
  assert.equal(built.code, 0, `${built.out}${built.err}`);
  for (const file of ['__armature/pyodide-worker.js', '__armature/sandbox-worker.js', '__armature/project.json', 'pyodide/pyodide.asm.wasm']) {
    assert.ok(existsSync(join(app, 'dist', file)), `vite build did not emit ${file}`);
  }
  const port = await freePort();
  const preview = await startUntil(process.execPath, [vite, 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], app, /(http:\/\/127\.0\.0\.1:\d+\/)/);
  try {
    assertExampleRan(await runExamplePage(preview.match[1]!));
  } finally {
    await stop(preview.child);
  }
  // The dev server: the plugin's middleware serves what the build emitted.
  const devPort = await freePort();
  const dev = await startUntil(process.execPath, [vite, '--host', '127.0.0.1', '--port', String(devPort), '--strictPort'], app, /(http:\/\/127\.0\.0\.1:\d+\/)/);
  try {
    assertExampleRan(await runExamplePage(dev.match[1]!));
  } finally {
    await stop(dev.child);
  }
});

test('the API reference (npm run docs:api) generates from the declarations the package ships: a page per entry, from the JSDoc', () => {
  const out = tempDir('api-docs');
  generateApiReference(join(root, 'dist', 'types'), out);
  const index = readFileSync(join(out, 'index.md'), 'utf8');
  for (const entry of API_ENTRIES) assert.ok(index.includes(`[${entry.name}](./${entry.name.replace('/', '-')}.md)`), `index.md lacks ${entry.name}`);
  assert.match(readFileSync(join(out, 'armature-ai-sdk.createarmaturetools.md'), 'utf8'), /Boots a persona \(or takes `options.system`(<!-- -->)?\) and returns its tools as an AI SDK `ToolSet`/);
  assert.match(readFileSync(join(out, 'armature.bootoptions.root.md'), 'utf8'), /a folder of your own, read beside the package's/);
});
