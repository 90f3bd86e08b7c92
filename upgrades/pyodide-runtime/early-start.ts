/**
 * Starting Python's confined child before boot gets to the runtime. A command that is there to
 * run Python (`armature run`, `armature mcp`) calls this first: the child process starts (~70 ms
 * to its first word) while the rest of the system boots, and the runtime takes it when boot
 * reaches it. Only what boot would start anyway is started: Node, `process` isolation, `autoStart`.
 */
import type { Platform } from '../../src/platform/platform.ts';
import { runtimeOptionsFromConfig, type PyodideRuntimeConfig } from './config-options.ts';
import { resolveOptions } from './runtime-options.ts';

/**
 * Starts the confined child the runtime booted with `config` on `platform` will ask for. Resolves
 * with whether a child is starting (there is no need to wait for it) and never rejects: whatever
 * goes wrong here, the runtime starts its child as usual.
 */
export async function startPythonEarly(config: PyodideRuntimeConfig, platform: Platform): Promise<boolean> {
  try {
    const { autoStart, options } = runtimeOptionsFromConfig(config, platform);
    const o = resolveOptions(options);
    if (!autoStart || o.isolation !== 'process' || typeof process === 'undefined') return false;
    const [{ childLaunch }, { startPythonChildEarly }] = await Promise.all([import('./process-paths.ts'), import('./process-link.ts')]);
    startPythonChildEarly((await childLaunch(o)).launch);
    return true;
  } catch {
    return false;
  }
}
