// Browser suites run in the system Chromium (no browser download is possible here).
import { writeFileSync } from 'node:fs';
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { projectFilesMiddleware, isolationHeadersMiddleware, sandboxWorkerMiddleware } from './src/server/middleware.ts';
import { testFixturesMiddleware } from './test/helpers/fixtures-middleware.ts';
import { probeMiddleware } from './test/helpers/probe-middleware.ts';

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
  plugins: [esbuildPlugin({ ts: true, target: 'es2022' })],
  middleware: [...(isolated ? [isolationHeadersMiddleware()] : []), projectFilesMiddleware(process.cwd()), sandboxWorkerMiddleware(), testFixturesMiddleware(), probeMiddleware()],
  browsers: [chromeLauncher({ launchOptions: { executablePath, headless: true, args: chromeArgs } })],
  reporters: [defaultReporter(), summaryReporter({ flatten: false }), countingReporter()],
};
