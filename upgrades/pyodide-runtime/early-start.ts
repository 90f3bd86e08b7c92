/**
 * The upgrade's early start (`earlyStart` in `modules/upgrades.json`): boot calls it before it
 * imports the entries, so Python's confined child starts (~70 ms to its first word) while the rest
 * of the system boots, and the runtime takes it when boot reaches it. Only what boot would start
 * anyway is started: Node, `process` isolation, `autoStart`. Kept small: boot waits for its import.
 */
import type { EarlyStartModule } from '../../src/kernel/upgrade.ts';
import type { Platform } from '../../src/platform/platform.ts';
import { runtimeOptionsFromConfig, type PyodideRuntimeConfig } from './config-options.ts';
import { resolveOptions } from './host/runtime-options.ts';

/**
 * Starts the confined child the runtime booted with `config` on `platform` will ask for. Resolves
 * with whether a child is starting (there is no need to wait for it) and never rejects: whatever
 * goes wrong here, the runtime starts its child as usual. When `signal` aborts, the child is
 * stopped unless a runtime took it. Default: stopped only when nobody took it within a minute.
 */
export async function startPythonEarly(config: PyodideRuntimeConfig, platform: Platform, signal?: AbortSignal): Promise<boolean> {
  try {
    const { autoStart, options } = runtimeOptionsFromConfig(config, platform);
    const o = resolveOptions(options);
    if (!autoStart || o.isolation !== 'process' || typeof process === 'undefined' || signal?.aborted) return false;
    const [{ childLaunch }, { startPythonChildEarly }] = await Promise.all([import('./process/process-paths.ts'), import('./process/process-link.ts')]);
    startPythonChildEarly((await childLaunch(o)).launch, undefined, signal);
    return true;
  } catch {
    return false;
  }
}

/** The hook boot calls: starts the child for the runtime the factory will make with `config` (Node only). */
export const earlyStart: EarlyStartModule['earlyStart'] = async ({ config, platform, signal }) => {
  if (platform.kind === 'node') await startPythonEarly(config as PyodideRuntimeConfig, platform, signal);
};
