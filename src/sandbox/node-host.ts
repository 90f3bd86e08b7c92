/**
 * Node: a confined worker is a confined child process (`confined-child.ts`: the permission model
 * with read access to its own entry file only, no code generation from strings, a heap cap, an
 * empty environment, frames over fd 3, the resident-memory watch), here also with frozen
 * intrinsics and vm modules for the agent's realm (`node-child.ts`).
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNodeChild } from '../platform/package-layout.ts';
import { SandboxError } from './errors.ts';
import { spawnConfinedChild } from './confined-child.ts';
import { FrameTooLargeError } from './frames.ts';
import type { SandboxTransport, TransportOptions } from './transport.ts';

/** Resident memory a child may use beyond its heap cap (Node itself, code, ArrayBuffers), in MiB. */
export const RSS_ALLOWANCE_MB = 160;
const ESBUILD = 'esbuild';

/**
 * Bundles the child's entry (`node-child.ts`, with the agent realm's script inlined) to one plain
 * JavaScript module. The child cannot compile TypeScript itself: tsx would start esbuild, a child
 * process the permission model refuses.
 */
export async function bundleNodeChild(): Promise<string> {
  // Named through a variable so that bundling the package for browsers does not pull esbuild in.
  const esbuild = (await import(ESBUILD)) as typeof import('esbuild');
  const here = fileURLToPath(new URL('.', import.meta.url));
  const inner = await esbuild.build({
    entryPoints: [join(here, 'inner-realm.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: '__armatureInner',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'silent',
  });
  const child = await esbuild.build({
    entryPoints: [join(here, 'node-child.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    define: { __ARMATURE_INNER_REALM__: JSON.stringify(inner.outputFiles[0]!.text) },
    logLevel: 'silent',
  });
  return child.outputFiles[0]!.text;
}

let entry: Promise<string> | undefined;

/**
 * Path of the child's entry: the built package ships it (`sandboxNodeChild` in package-layout.ts);
 * from the sources it is bundled once per process into a private temporary folder (removed at exit).
 */
export function nodeChildEntry(): Promise<string> {
  entry ??= (async () => {
    if (sandboxNodeChild) {
      const built = fileURLToPath(sandboxNodeChild);
      if (!existsSync(built)) throw new Error(`[sandbox] the confined worker's entry ${built} is missing from the package: reinstall it`);
      return realpathSync(built);
    }
    const code = await bundleNodeChild();
    // A folder of our own (mkdtemp: created 0700, unpredictable name), so no one else can swap the file.
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'armature-sandbox-')));
    const file = join(dir, 'node-child.mjs');
    writeFileSync(file, code, { mode: 0o400 });
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return file;
  })();
  entry.catch(() => {
    entry = undefined;
  });
  return entry;
}

/** Starts a confined child and returns the host's side of it. */
export async function startNodeSandbox(options: TransportOptions): Promise<SandboxTransport> {
  const file = await nodeChildEntry();
  const child = spawnConfinedChild({
    entry: file,
    heapMb: options.memoryMb,
    rssLimitMb: options.memoryMb + RSS_ALLOWANCE_MB,
    maxFrameBytes: options.maxMessageBytes + 1024,
    flags: ['--experimental-vm-modules', '--frozen-intrinsics'],
  });
  return {
    pid: child.pid,
    post(msg) {
      try {
        child.post(msg, options.maxMessageBytes, msg.type === 'call' ? 'the arguments' : `the ${msg.type} message`);
      } catch (e) {
        if (e instanceof FrameTooLargeError) {
          throw new SandboxError('MESSAGE_TOO_LARGE', `[sandbox] ${options.name}: ${e.message}`, {
            hint: 'Pass less data, or raise limits.maxMessageBytes.',
            details: { bytes: e.bytes, limit: e.limit },
          });
        }
        throw new SandboxError('SANDBOX_PROTOCOL', `[sandbox] ${options.name}: the ${msg.type} message cannot be sent (${(e as Error).message}); pass plain data`, { cause: e });
      }
    },
    onMessage: (h) => child.onMessage(h),
    onExit: (h) => child.onExit(h),
    terminate: () => child.terminate(),
  };
}
