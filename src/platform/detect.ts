import type { Platform } from './platform.ts';

/** Options understood by {@link defaultPlatform}. */
export interface DefaultPlatformOptions {
  /** Node: where persistent data lives. Default: `.armature` in the current directory. */
  dataDir?: string;
  /** Node: a folder of your own read beside the package's (see `createNodePlatform`). Default: none. */
  root?: string;
}

/** Whether this code runs in Node (main thread or worker_threads). */
export function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined';
}

/** The platform for where this code runs; Node's adapters are imported only in Node. */
export async function defaultPlatform(options: DefaultPlatformOptions = {}): Promise<Platform> {
  if (isNode()) {
    const { createNodePlatform } = await import('./node.ts');
    return createNodePlatform({ dataDir: options.dataDir, root: options.root });
  }
  // A browser reads a root through its server's project snapshot (startServer({ root })).
  const { createBrowserPlatform } = await import('./browser.ts');
  return createBrowserPlatform();
}
