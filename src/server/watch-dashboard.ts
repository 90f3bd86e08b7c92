/**
 * The dashboard of a checkout, kept built while `npm start` runs: esbuild's context API watches
 * every file the bundles read — and the folders of the loader's `upgrades/<folder>/index.ts`
 * imports, so an upgrade added while the server runs is bundled too — and rebuilds on a change.
 * A page loaded before a rebuild keeps its bundle until it is reloaded; the loader's error for a
 * module missing from it says so (`src/kernel/loader.ts`).
 */
import * as esbuild from 'esbuild';
import { join } from 'node:path';
import { dashboardBuildOptions, finishDashboard, type BuildOptions } from './build-dashboard.ts';

/** What each build reports. */
export interface DashboardBuild {
  /** The first build (before the server starts) or a rebuild after a change. */
  first: boolean;
  /** Total size in bytes (0 when the build failed). */
  bytes: number;
  ms: number;
  /** esbuild's errors, as text: the previous bundles stay served. */
  errors: string[];
}

/** A watching build; `dispose` stops watching. */
export interface DashboardWatch {
  outDir: string;
  dispose(): Promise<void>;
}

/**
 * Builds the dashboard into `outDir` (resolving once the first build is done, as
 * `buildDashboard` does) and rebuilds it whenever a file it depends on changes, telling `onBuild`.
 */
export async function watchDashboard(options: BuildOptions & { onBuild(build: DashboardBuild): void }): Promise<DashboardWatch> {
  const outDir = options.outDir ?? join(options.root, 'dist', 'dashboard');
  let first = true;
  let t0 = performance.now();
  let firstDone!: () => void;
  const built = new Promise<void>((r) => (firstDone = r));
  const report: esbuild.Plugin = {
    name: 'armature-dashboard-builds',
    setup(build) {
      build.onStart(() => {
        t0 = performance.now();
      });
      build.onEnd(async (result) => {
        const errors = result.errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`);
        let bytes = 0;
        if (!errors.length && result.metafile) {
          try {
            bytes = await finishDashboard(options, outDir, result.metafile);
          } catch (e) {
            errors.push((e as Error).message);
          }
        }
        options.onBuild({ first, bytes, ms: performance.now() - t0, errors });
        if (first) {
          first = false;
          firstDone();
        }
      });
    },
  };
  const ctx = await esbuild.context({ ...dashboardBuildOptions(options, outDir), plugins: [report], logLevel: 'silent' });
  await ctx.watch();
  await built;
  return { outDir, dispose: () => ctx.dispose() };
}
