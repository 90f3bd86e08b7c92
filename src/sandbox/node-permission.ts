/**
 * Node command-line flags that confine a child process: the permission model (named
 * `--experimental-permission` on Node 20, `--permission` from 22), read access only to the listed
 * paths, writes only to the listed ones (none by default), no child processes, no worker threads
 * unless asked, no native addons, no WASI, no code generation from strings, and a heap cap.
 */

/** Options of {@link confinementFlags}. */
export interface ConfinementFlagsOptions {
  /** Absolute paths (files or folders) the child may read. */
  read: readonly string[];
  /** Absolute paths (files or folders) the child may write (and read). Default: none. */
  write?: readonly string[];
  /** Whether the child may start worker threads. Default: false. */
  workers?: boolean;
  /** V8 old-space cap in MiB (`--max-old-space-size`). */
  memoryMb: number;
  /** Further V8/Node flags, e.g. `--experimental-vm-modules`. Default: none. */
  extra?: readonly string[];
}

/** The permission flag this Node understands. */
export function permissionFlag(): '--permission' | '--experimental-permission' {
  // `allowedNodeEnvironmentFlags` lists the flags this binary accepts; Node 22 renamed the flag.
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

/**
 * The flags for a confined child. Node reads `--allow-fs-read` as a comma-separated list, so a
 * path holding a comma is refused rather than silently split.
 */
export function confinementFlags(options: ConfinementFlagsOptions): string[] {
  const write = options.write ?? [];
  for (const p of [...options.read, ...write]) {
    if (p.includes(',')) throw new Error(`[sandbox] cannot grant access to ${JSON.stringify(p)}: Node's permission flags cannot express a path holding a comma`);
  }
  if (!Number.isInteger(options.memoryMb) || options.memoryMb < 16) throw new Error(`[sandbox] memoryMb must be a whole number of at least 16, got ${options.memoryMb}`);
  return [
    permissionFlag(),
    ...[...options.read, ...write].map((p) => `--allow-fs-read=${p}`),
    ...write.map((p) => `--allow-fs-write=${p}`),
    ...(options.workers ? ['--allow-worker'] : []),
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${options.memoryMb}`,
    // The permission model and vm modules are experimental: their warnings would only be noise on stderr.
    '--no-warnings',
    ...(options.extra ?? []),
  ];
}
