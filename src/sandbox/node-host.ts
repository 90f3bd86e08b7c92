/**
 * Node: a confined worker is a child process started with the permission model (read access to
 * its own entry file only; no writes, no child processes, no worker threads, no native addons),
 * no code generation from strings, a heap cap, frozen intrinsics and an empty environment. It
 * speaks length-prefixed frames over fd 3. On Linux the host also watches the child's resident
 * memory, which the heap cap alone does not bound (ArrayBuffers live outside the heap).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { sandboxNodeChild } from '../platform/package-layout.ts';
import { SandboxError } from './errors.ts';
import { encodeFrame, FrameReader, FrameTooLargeError } from './frames.ts';
import { confinementFlags } from './node-permission.ts';
import type { SandboxTransport, TransportExit, TransportOptions } from './transport.ts';

/** Resident memory a child may use beyond its heap cap (Node itself, code, ArrayBuffers), in MiB. */
export const RSS_ALLOWANCE_MB = 160;
/** How often the host reads the child's resident memory, in ms. */
const RSS_CHECK_MS = 100;
/** Characters of the child's stderr kept for error reports. */
const STDERR_TAIL = 4096;
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

/** Resident memory of process `pid` in MiB (Linux), or undefined where it cannot be read. */
export function residentMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Starts a confined child and returns the host's side of it. */
export async function startNodeSandbox(options: TransportOptions): Promise<SandboxTransport> {
  const file = await nodeChildEntry();
  const flags = confinementFlags({ read: [file], memoryMb: options.memoryMb, extra: ['--experimental-vm-modules', '--frozen-intrinsics'] });
  const child = spawn(process.execPath, [...flags, file], { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], windowsHide: true });
  const channel = child.stdio[3] as Readable & Writable;
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  let tail = '';
  stderr.setEncoding('utf8');
  stderr.on('data', (s: string) => {
    tail = (tail + s).slice(-STDERR_TAIL);
  });
  stdout.resume();
  // A worker nobody terminates must not keep the host alive; calls in flight hold their own timers.
  child.unref();
  for (const s of [channel, stdout, stderr] as unknown as { unref?(): void }[]) s.unref?.();

  let handler: (raw: unknown) => void = () => undefined;
  let exitHandler: (e: TransportExit) => void = () => undefined;
  /** Set once the child is gone or being killed on purpose: no exit is reported after that. */
  let ended = false;
  let cause: TransportExit | undefined;
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => (markExited = resolve));

  const stop = (why: TransportExit) => {
    if (ended) return;
    cause ??= why;
    child.kill('SIGKILL');
  };
  const reader = new FrameReader(options.maxMessageBytes + 1024, {
    message: (v) => handler(v),
    oversize: (bytes) => stop({ reason: 'oversize', detail: `it sent a message of ${bytes} bytes; the limit is ${options.maxMessageBytes}` }),
    malformed: (e) => stop({ reason: 'exit', detail: `it sent a malformed message (${e.message})` }),
  });
  channel.on('data', (chunk: Buffer) => reader.push(chunk));
  channel.on('error', () => undefined);

  const rssLimit = options.memoryMb + RSS_ALLOWANCE_MB;
  const watch = setInterval(() => {
    const mb = child.pid === undefined ? undefined : residentMb(child.pid);
    if (mb !== undefined && mb > rssLimit) stop({ reason: 'memory', detail: `its resident memory reached ${Math.round(mb)} MiB (limit ${rssLimit} MiB)` });
  }, RSS_CHECK_MS);
  watch.unref();

  const finish = (why: () => TransportExit) => {
    clearInterval(watch);
    markExited();
    const wasEnded = ended;
    ended = true;
    if (!wasEnded) exitHandler(why());
  };
  child.once('error', (e) => {
    // Only a child that never started reports no exit after its error.
    if (child.pid === undefined) finish(() => ({ reason: 'error', detail: `it could not start: ${e.message}` }));
  });
  child.once('exit', (code, signal) =>
    finish(() => {
      if (cause) return cause;
      if (/heap out of memory|Reached heap limit|allocation failed/i.test(tail)) return { reason: 'memory', detail: `its heap reached the ${options.memoryMb} MiB limit` };
      return { reason: 'exit', detail: `it exited (${signal ?? `code ${code}`})${tail.trim() ? `: ${tail.trim().slice(-600)}` : ''}` };
    }),
  );

  return {
    pid: child.pid,
    post(msg) {
      let frame: Buffer;
      try {
        frame = encodeFrame(msg, options.maxMessageBytes, msg.type === 'call' ? 'the arguments' : `the ${msg.type} message`);
      } catch (e) {
        if (e instanceof FrameTooLargeError) {
          throw new SandboxError('MESSAGE_TOO_LARGE', `[sandbox] ${options.name}: ${e.message}`, {
            hint: 'Pass less data, or raise limits.maxMessageBytes.',
            details: { bytes: e.bytes, limit: e.limit },
          });
        }
        throw new SandboxError('SANDBOX_PROTOCOL', `[sandbox] ${options.name}: the ${msg.type} message cannot be sent (${(e as Error).message}); pass plain data`, { cause: e });
      }
      if (!ended) channel.write(frame);
    },
    onMessage(h) {
      handler = h;
    },
    onExit(h) {
      exitHandler = h;
    },
    async terminate() {
      if (!ended) {
        ended = true;
        // Waiting for the exit needs the child's handle to hold the event loop open again.
        child.ref();
        child.kill('SIGKILL');
      }
      clearInterval(watch);
      await exited;
    },
  };
}
