/**
 * `armature start` from a checkout: the dashboard built from the sources, and rebuilt while the
 * server runs whenever a file changes — an upgrade added meanwhile included — with a line saying
 * so (a page picks a rebuild up when it is reloaded).
 */
import type { DashboardWatch } from '../server/watch-dashboard.ts';

/** Builds and watches the dashboard into `outDir`; resolves to the watch, or `undefined` when the first build failed (said on stderr). */
export async function buildAndWatchDashboard(root: string, outDir: string, io: { out(t: string): void; err(t: string): void }): Promise<DashboardWatch | undefined> {
  io.out('Building the dashboard with esbuild…');
  const { watchDashboard } = await import('../server/watch-dashboard.ts');
  let failed = false;
  const watch = await watchDashboard({
    root,
    outDir,
    onBuild(b) {
      const kb = `${(b.bytes / 1024).toFixed(0)} KB`;
      if (b.errors.length) {
        failed ||= b.first;
        io.err(`armature: the dashboard did not ${b.first ? 'build' : 'rebuild'}${b.first ? '' : ' (the previous build is still served)'}:\n${b.errors.slice(0, 5).join('\n')}`);
      } else if (b.first) {
        io.out(`Built ${kb} in ${b.ms.toFixed(0)} ms; a change to its files (a new upgrade too) rebuilds it while the server runs.`);
      } else {
        io.out(`Rebuilt the dashboard (${kb} in ${b.ms.toFixed(0)} ms) after a change: reload the page to use it.`);
      }
    },
  });
  if (!failed) return watch;
  await watch.dispose();
  return undefined;
}
