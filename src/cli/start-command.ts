/**
 * `armature start`: the dashboard. Two ways to run it, with the same widgets:
 *
 * - **attached** (the default): the system boots here, in Node,
 *   over the data folder the other commands use, and the page is a view of it and of every other
 *   process on that folder (`armature agent`, `armature mcp`, a library `boot()`), live;
 * - **in the browser** (`--in-browser`): the page boots a system of its own, in the tab, for agents
 *   that live there.
 *
 * Either way the server is loopback only unless told (`--host H --allow-remote`), needs the access
 * token printed in the URL, and cannot be framed (`src/server/guard.ts`).
 */
import { fileURLToPath } from 'node:url';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { describeError } from '../kernel/errors.ts';
import type { McpServers } from '../kernel/mcp-servers.ts';
import { dashboardDir, fromSources } from '../platform/package-layout.ts';
import type { RunningServer } from '../server/serve.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/** Options of {@link startDashboard}. */
export interface StartOptions {
  persona: string;
  /** The data folder of the attached system. */
  dataDir: string;
  /** `--port`, as given. Default: PORT, else 8080. */
  port?: string;
  /** `--host`. Default: 127.0.0.1. */
  host?: string;
  allowRemote: boolean;
  snapshot: 'persist' | 'off';
  safe: boolean;
  /** The page boots its own system instead of viewing one booted here. */
  inBrowser: boolean;
  mcpServers?: McpServers;
  /** `--root DIR`: a folder of one's own beside the package's, served to the page too. Default: none. */
  root?: string;
  /** Boots the attached system (the CLI's boot, with its platform and config). */
  boot(): Promise<ArmatureSystem>;
}

/** The dashboard did not build (the build has said why). */
class StartFailed extends Error {}

/** A running dashboard: its URL with the token, and how to stop it. */
export interface StartedDashboard {
  url: string;
  server: RunningServer;
  /** The attached system, when there is one. */
  system?: ArmatureSystem;
  close(): Promise<void>;
}

/** Builds the page when running from the sources, boots the system when attached, and serves. */
export async function startDashboard(o: StartOptions, io: CliIo): Promise<StartedDashboard> {
  const port = o.port === undefined ? undefined : Number(o.port);
  if (o.port !== undefined && (!/^\d+$/.test(o.port) || port! > 65535)) throw new UsageError(`--port takes a whole number from 0 to 65535, got ${JSON.stringify(o.port)}`);
  if (o.allowRemote && o.host === undefined) throw new UsageError('--allow-remote goes with --host H (the interface to listen on)');
  const { startServer } = await import('../server/serve.ts');
  const { isLoopbackName } = await import('../server/guard.ts');
  if (o.host !== undefined && !isLoopbackName(o.host) && !o.allowRemote) {
    throw new UsageError(`--host ${o.host} is not a loopback address: anyone who can reach it (and has the token) could see and steer this system; add --allow-remote to mean it, or leave --host out`);
  }
  const { projectRoot } = await import('../platform/node.ts');
  const outDir = fileURLToPath(dashboardDir);
  // From a checkout the dashboard is built from the sources, and rebuilt as they change.
  const watch = fromSources ? await (await import('./dashboard-build.ts')).buildAndWatchDashboard(projectRoot, outDir, io) : undefined;
  if (fromSources && !watch) throw new StartFailed();
  let system: ArmatureSystem | undefined;
  let server: RunningServer;
  try {
    system = o.inBrowser ? undefined : await o.boot();
    server = await startServer({ ...(o.root === undefined ? {} : { root: o.root }), outDir, port, host: o.host, allowRemote: o.allowRemote, mcpServers: o.inBrowser ? o.mcpServers : undefined, system });
  } catch (e) {
    await watch?.dispose();
    await system?.dispose();
    throw e;
  }
  const query = new URLSearchParams();
  if (o.inBrowser) {
    // The page boots its own system: it is told which, and how.
    if (o.persona !== 'default') query.set('persona', o.persona);
    if (o.snapshot === 'off') query.set('snapshot', 'off');
    if (o.safe) query.set('safe', '');
  }
  // Last, so that whoever copies the URL by hand copies the query before it.
  query.set('token', server.token);
  return {
    url: `${server.origin}/?${query}`,
    server,
    ...(system ? { system } : {}),
    async close() {
      await server.close();
      await watch?.dispose();
      await system?.dispose();
    },
  };
}

/** `armature start`: serves until SIGINT or SIGTERM; resolves to the exit code. */
export async function runStartCommand(o: StartOptions, io: CliIo): Promise<number> {
  let started: StartedDashboard;
  try {
    started = await startDashboard(o, io);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    // The build said what failed.
    if (e instanceof StartFailed) return 1;
    io.err(`armature: ${describeError(e)}`);
    return /REMOTE/.test((e as { code?: string }).code ?? '') ? 2 : 1;
  }
  io.out(`Armature dashboard: ${started.url}`);
  if (started.system) io.out(`Attached to persona ${started.system.persona.id} over the data folder ${o.dataDir}: every process there shows on the page.`);
  io.out('Open it in Chromium or Chrome; press Ctrl+C to stop.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await started.close();
  return 0;
}
