// Browser suites run in the system Chromium (no browser download is possible here).
import { writeFileSync } from 'node:fs';
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import * as esbuild from 'esbuild';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { projectFilesMiddleware, isolationHeadersMiddleware, pyodideFilesMiddleware, pyodideWorkerCspMiddleware, sandboxWorkerMiddleware } from './src/server/middleware.ts';
import { testFixturesMiddleware } from './test/helpers/fixtures-middleware.ts';
import { probeMiddleware } from './test/helpers/probe-middleware.ts';
import { scriptedModelMiddleware } from './test/helpers/scripted-model-server.ts';

const executablePath = process.env.CHROME_PATH || '/usr/bin/chromium';
const chromeArgs = [
  '--no-sandbox', '--headless=new', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

/** Counts results across all sessions and writes them where scripts/test.mjs reads them. */
function countingReporter() {
  return {
    onTestRunFinished({ sessions }) {
      let passed = 0;
      let failed = 0;
      const walk = (suite) => {
        for (const t of suite.tests ?? []) {
          if (t.skipped) continue;
          if (t.passed) passed++;
          else failed++;
        }
        for (const s of suite.suites ?? []) walk(s);
      };
      for (const s of sessions) {
        if (s.testResults) walk(s.testResults);
        // A file that failed to load or threw outside a test counts as one failure.
        if (!s.passed && (s.errors?.length ?? 0) > 0) failed++;
      }
      if (process.env.ARMATURE_WTR_SUMMARY) writeFileSync(process.env.ARMATURE_WTR_SUMMARY, JSON.stringify({ passed, failed }));
    },
  };
}

// The AI SDK reaches a CommonJS package (@vercel/oidc, through its gateway) that the unbundled
// test server cannot serve as an ES module. The dashboard's esbuild bundle handles it; here each
// SDK package is bundled by esbuild the same way, on first request.
const AI_SDK = ['ai', 'ai/test', '@ai-sdk/openai-compatible', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/google'];
function bundledPackages(names) {
  const route = '/__armature/bundled/';
  const built = new Map();
  return {
    name: 'armature-bundled-packages',
    resolveImport: ({ source }) => (names.includes(source) ? `${route}${encodeURIComponent(source)}.js` : undefined),
    async serve(context) {
      if (!context.path.startsWith(route)) return undefined;
      const name = decodeURIComponent(context.path.slice(route.length, -3));
      if (!names.includes(name)) return undefined;
      if (!built.has(name)) {
        built.set(name, esbuild.build({
          stdin: { contents: `export * from ${JSON.stringify(name)};`, resolveDir: process.cwd(), loader: 'js' },
          bundle: true, format: 'esm', platform: 'browser', target: 'es2022', conditions: ['browser', 'production'], write: false, logLevel: 'silent',
        }).then((r) => r.outputFiles[0].text));
      }
      return { body: await built.get(name), type: 'js' };
    },
  };
}

// Suites named *.no-isolation.* run in a second pass without the cross-origin isolation headers,
// so the page has no SharedArrayBuffer (the JSPI and async call_tool transports).
const isolated = process.env.ARMATURE_WTR_ISOLATION !== 'off';
const all = ['src/**/*.browser.test.ts', 'upgrades/**/*.browser.test.ts', 'test/browser/**/*.test.ts'];

export default {
  rootDir: '.',
  files: isolated ? [...all, '!**/*.no-isolation.*'] : all.map((g) => g.replace(/\*\.(browser\.)?test\.ts$/, '*.no-isolation.$1test.ts')),
  nodeResolve: { exportConditions: ['browser', 'production'] },
  concurrency: 1,
  testsFinishTimeout: 600_000,
  testFramework: { config: { timeout: 120_000 } },
  browserStartTimeout: 60_000,
  // `.py` files are imported as their text, as in the builds (esbuild's `text` loader).
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', loaders: { '.py': 'text' } }), bundledPackages(AI_SDK)],
  middleware: [
    ...(isolated ? [isolationHeadersMiddleware()] : []),
    projectFilesMiddleware(),
    // Pyodide's files at /pyodide/, where a page's boot() looks by default (as every Armature server serves them).
    pyodideFilesMiddleware(),
    pyodideWorkerCspMiddleware(['/upgrades/pyodide-runtime/worker/main.ts']),
    sandboxWorkerMiddleware(),
    testFixturesMiddleware(),
    probeMiddleware(),
    scriptedModelMiddleware(),
  ],
  browsers: [chromeLauncher({ launchOptions: { executablePath, headless: true, args: chromeArgs } })],
  reporters: [defaultReporter(), summaryReporter({ flatten: false }), countingReporter()],
};
