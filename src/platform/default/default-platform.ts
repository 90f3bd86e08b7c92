/**
 * The platform for where this code runs. It sits in a room above the adapters because it picks one
 * of them: Node's and the browser's adapters import the platform's contract, never this chooser.
 */
import { isNode } from '../detect.ts';
import type { Platform } from '../platform.ts';

/** Options understood by {@link defaultPlatform}. */
export interface DefaultPlatformOptions {
  /** Node: where persistent data lives. Default: `.armature` in the current directory. */
  dataDir?: string;
  /** Node: a folder of your own read beside the package's (see `createNodePlatform`). Default: none. */
  root?: string;
}

/** The platform for where this code runs; Node's adapters are imported only in Node. */
export async function defaultPlatform(options: DefaultPlatformOptions = {}): Promise<Platform> {
  if (isNode()) {
    const { createNodePlatform } = await import('../node.ts');
    return createNodePlatform({ dataDir: options.dataDir, root: options.root });
  }
  // A browser reads a root through its server's project snapshot (startServer({ root })).
  const { createBrowserPlatform } = await import('../browser/browser.ts');
  return createBrowserPlatform();
}
