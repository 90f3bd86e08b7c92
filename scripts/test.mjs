#!/usr/bin/env node
// Runs every suite — Node (node:test through tsx and the `.py` hook) and real Chromium (@web/test-runner) —
// and ends with one line `N passed, N failed` that sums them all.
//
//   node scripts/test.mjs            all suites
//   node scripts/test.mjs --node     Node suites only
//   node scripts/test.mjs --browser  Chromium suites only
//   node scripts/test.mjs --node path/to/one.test.ts   selected Node files
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const onlyNode = argv.includes('--node');
const onlyBrowser = argv.includes('--browser');
const selected = argv.filter((a) => !a.startsWith('--'));
/** What running the sources needs: tsx, and `.py` files imported as text (see the file). */
const sourceHooks = pathToFileURL(join(root, 'src/platform/source-hooks.mjs')).href;

/** Test files below the given folders, excluding browser-only ones. */
function findTests(dirs, match) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (match(name)) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  for (const d of dirs) if (existsSync(join(root, d))) walk(join(root, d));
  return out.sort();
}

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function chromePath() {
  return process.env.CHROME_PATH || '/usr/bin/chromium';
}

let passed = 0;
let failed = 0;
let exit = 0;

if (!onlyNode && !existsSync(chromePath())) {
  console.error(
    `Chromium not found at ${chromePath()}: install it with 'sudo apt-get install -y chromium' or set CHROME_PATH to a Chrome/Chromium binary.`,
  );
  process.exit(1);
}

if (!onlyBrowser) {
  const files = selected.length
    ? selected
    : findTests(['src', 'upgrades', 'test', 'bench'], (n) => n.endsWith('.test.ts') && !n.endsWith('.browser.test.ts')).filter(
        (f) => !f.startsWith('test/browser/'),
      );
  const out = mkdtempSync(join(tmpdir(), 'armature-test-'));
  const tap = join(out, 'node.tap');
  console.log(`\n== Node suites (${files.length} files) ==`);
  const code = await run(process.execPath, [
    '--import', sourceHooks,
    '--test',
    // A safety net, not a clock for behaviour: a test stuck for 15 minutes fails instead of holding the run.
    // (Not --test-force-exit: it cuts the TAP file short, losing the counts below. Tests stop what they start.)
    '--test-timeout=900000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tap}`,
    ...files,
  ]);
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  rmSync(out, { recursive: true, force: true });
  const pass = Number(/^# pass (\d+)/m.exec(text)?.[1] ?? 0);
  const fail = Number(/^# fail (\d+)/m.exec(text)?.[1] ?? 0) + Number(/^# cancelled (\d+)/m.exec(text)?.[1] ?? 0);
  passed += pass;
  failed += fail;
  if (code !== 0) {
    exit = 1;
    if (fail === 0) failed += 1; // the runner itself failed (e.g. a file did not load)
  }
  console.log(`node: ${pass} passed, ${fail} failed`);
}

if (!onlyNode) {
  // Two passes: the page cross-origin isolated (most suites), then without isolation (*.no-isolation.*).
  for (const isolation of ['on', 'off']) {
    const out = mkdtempSync(join(tmpdir(), 'armature-wtr-'));
    const summary = join(out, 'summary.json');
    console.log(`\n== Chromium suites (cross-origin isolation ${isolation}) ==`);
    const code = await run(process.execPath, ['--import', sourceHooks, join(root, 'node_modules/@web/test-runner/dist/bin.js'), '--config', 'web-test-runner.config.mjs'], {
      ARMATURE_WTR_SUMMARY: summary,
      ARMATURE_WTR_ISOLATION: isolation,
    });
    const s = existsSync(summary) ? JSON.parse(readFileSync(summary, 'utf8')) : { passed: 0, failed: 0 };
    rmSync(out, { recursive: true, force: true });
    passed += s.passed;
    failed += s.failed;
    if (code !== 0) {
      exit = 1;
      if (s.failed === 0) failed += 1;
    }
    console.log(`chromium (isolation ${isolation}): ${s.passed} passed, ${s.failed} failed`);
  }
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(exit || (failed > 0 ? 1 : 0));
