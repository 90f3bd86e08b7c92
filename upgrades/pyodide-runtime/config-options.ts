/**
 * The runtime's options as the upgrade builds them from its `boot` config: the start-up snapshot
 * kept in the platform's `pyodide-snapshot` cache and (Node) downloaded packages in its
 * `pyodide-packages` folder, unless the config names others. One function, so a child started
 * ahead of boot (`early-start.ts`) is started with exactly the options the runtime will ask for.
 */
import type { Platform } from '../../src/platform/platform.ts';
import type { PyodideRuntimeOptions } from './host/runtime-options.ts';

/** The upgrade's config: every {@link PyodideRuntimeOptions} field, plus `autoStart`. */
export type PyodideRuntimeConfig = PyodideRuntimeOptions & {
  /** Start Python while the rest boots. Default: true. */
  autoStart?: boolean;
};

/** Splits the config into `autoStart` and the runtime's options on `platform`. */
export function runtimeOptionsFromConfig(config: PyodideRuntimeConfig, platform: Platform): { autoStart: boolean; options: PyodideRuntimeOptions } {
  const { autoStart = true, ...options } = config;
  const snapshotCache = options.snapshotCache ?? platform.openCache('pyodide-snapshot');
  const packageCacheDir = options.packageCacheDir ?? platform.openCache('pyodide-packages').folder;
  return { autoStart, options: { ...options, snapshotCache, packageCacheDir } };
}
