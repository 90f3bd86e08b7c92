/**
 * Node: a child process confined from outside, speaking frames with its host over fd 3. Started
 * with the permission model (`confinementFlags`: read access to the listed paths only, writes
 * only to the listed ones, no child processes, worker threads only when asked, no native addons),
 * no code generation from strings, a heap cap and an empty environment. On Linux the host also watches the child's
 * resident memory, which the heap cap alone does not bound (ArrayBuffers, WebAssembly memory).
 * Both confined workers (`node-host.ts`) and Python's confined runtime use it.
 */
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { residentBytes } from '../platform/proc/linux-proc.ts';
import { encodeFrame, FrameReader } from './frames.ts';
import { confinementFlags } from './node-permission.ts';
import type { TransportExit } from './transport.ts';

/** How often the host reads a child's resident memory, in ms. */
const RSS_CHECK_MS = 100;
/** Messages kept for a handler not set yet (a child says little before its start). */
const MAX_EARLY_MESSAGES = 64;
/** Characters of the child's stderr kept for error reports. */
const STDERR_TAIL = 4096;

/** Options of {@link spawnConfinedChild}. */
export interface ConfinedChildOptions {
  /** The plain-JavaScript module the child runs (readable by it). */
  entry: string;
  /** Further paths (files or folders) the child may read. Default: none. */
  read?: readonly string[];
  /** Paths (files or folders) the child may write and read. Default: none. */
  write?: readonly string[];
  /** Whether the child may start worker threads. Default: false. */
  workers?: boolean;
  /** V8 heap cap of the child's main thread, in MiB. */
  heapMb: number;
  /** Resident memory past which the host kills the child (Linux), in MiB. */
  rssLimitMb: number;
  /** Largest frame accepted from the child, in bytes: a longer one is refused from its header and the child is killed. */
  maxFrameBytes: number;
  /** Further flags, e.g. `--experimental-vm-modules`. Default: none. */
  flags?: readonly string[];
  /** Arguments after the entry, for the child's `process.argv` (visible in the process list: nothing secret). Default: none. */
  args?: readonly string[];
  /** Extra pipes after fd 3 (fd 4, 5, ...), handed back as `pipes`. Default: 0. */
  extraPipes?: number;
  /**
   * The child's scheduling priority as a niceness, -20 (first) to 19 (last), never above the
   * host's own (usually 0). Default: {@link CHILD_NICENESS}.
   */
  niceness?: number;
}

/**
 * Confined children run below the host: agent code that spins (a `while True`, a worker spinning
 * for an answer) then never takes a core from the host's event loop, which serves every other
 * caller, the dashboard and the answers those very children wait for. Measured with a pool of
 * Python runtimes making `call_tool`s: 10-30% less time for 200 runs (runtime-pool bench).
 */
export const CHILD_NICENESS = 10;

/** The host's side of a confined child. */
export interface ConfinedChild {
  readonly pid?: number;
  /** The host's ends of the extra pipes (fd 4, 5, ... in the child). */
  readonly pipes: (Readable & Writable)[];
  /** Sends one message; throws `FrameTooLargeError` past `maxBytes`, or the serializer's error. */
  post(msg: unknown, maxBytes?: number, what?: string): void;
  /**
   * Every message the child sends, not yet validated. Messages that came before a handler was
   * set are handed to the first one (a child started ahead of need says hello before anyone listens).
   */
  onMessage(handler: (raw: unknown) => void): void;
  /**
   * The child stopped without being asked to (called at most once; never after `terminate`). An
   * exit before a handler was set is handed to the first one.
   */
  onExit(handler: (exit: TransportExit) => void): void;
  /** Whether the child is gone, or being stopped. */
  readonly ended: boolean;
  /** Kills the child and waits for it to be gone. */
  terminate(): Promise<void>;
  /**
   * Whether the child holds the host's event loop open. Off by default, so a child nobody
   * terminates does not keep the host alive; on while the host waits for an answer.
   */
  keepAlive(on: boolean): void;
}

/**
 * Sets the niceness of the child `pid`, never above the host's own priority. Done as soon as it is
 * spawned, while Node is still starting in it: the threads it starts afterwards (its workers,
 * Pyodide's among them) inherit the value. A priority the system refuses leaves the child as it is.
 */
function lowerPriority(pid: number | undefined, niceness: number): void {
  if (pid === undefined) return;
  try {
    const host = getPriority();
    if (niceness > host) setPriority(pid, niceness);
  } catch {
    // Not permitted here (a lower niceness than the host's needs privileges): it runs as the host does.
  }
}

/** Starts a confined child. */
export function spawnConfinedChild(o: ConfinedChildOptions): ConfinedChild {
  const flags = confinementFlags({ read: [o.entry, ...(o.read ?? [])], write: o.write, workers: o.workers, memoryMb: o.heapMb, extra: o.flags });
  const extra = Array.from({ length: o.extraPipes ?? 0 }, () => 'pipe' as const);
  const child = spawn(process.execPath, [...flags, o.entry, ...(o.args ?? [])], { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe', ...extra], windowsHide: true });
  lowerPriority(child.pid, o.niceness ?? CHILD_NICENESS);
  const pipes = extra.map((_, i) => child.stdio[4 + i] as Readable & Writable);
  const channel = child.stdio[3] as Readable & Writable;
  const stdout = child.stdout!;
  const stderr = child.stderr!;
  let tail = '';
  stderr.setEncoding('utf8');
  stderr.on('data', (s: string) => {
    tail = (tail + s).slice(-STDERR_TAIL);
  });
  stdout.resume();
  // A child nobody terminates must not keep the host alive; work in flight holds its own timers.
  child.unref();
  for (const s of [channel, stdout, stderr, ...pipes] as unknown as { unref?(): void }[]) s.unref?.();
  for (const p of pipes) p.on('error', () => undefined);

  /** Messages and the exit that came before their handlers were set. */
  const early: unknown[] = [];
  let earlyExit: TransportExit | undefined;
  let handler: (raw: unknown) => void = (raw) => {
    if (early.push(raw) > MAX_EARLY_MESSAGES) stop({ reason: 'exit', detail: `it sent over ${MAX_EARLY_MESSAGES} messages before its host listened` });
  };
  let exitHandler: (e: TransportExit) => void = (e) => void (earlyExit = e);
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
  const reader = new FrameReader(o.maxFrameBytes, {
    message: (v) => handler(v),
    oversize: (bytes) => stop({ reason: 'oversize', detail: `it sent a message of ${bytes} bytes; the limit is ${o.maxFrameBytes}` }),
    malformed: (e) => stop({ reason: 'exit', detail: `it sent a malformed message (${e.message})` }),
  });
  channel.on('data', (chunk: Buffer) => reader.push(chunk));
  channel.on('error', () => undefined);

  const watch = setInterval(() => {
    const bytes = child.pid === undefined ? undefined : residentBytes(child.pid);
    if (bytes !== undefined && bytes > o.rssLimitMb * 2 ** 20) stop({ reason: 'memory', detail: `its resident memory reached ${Math.round(bytes / 2 ** 20)} MiB (limit ${o.rssLimitMb} MiB)` });
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
      if (/heap out of memory|Reached heap limit|allocation failed/i.test(tail)) return { reason: 'memory', detail: `its heap reached the ${o.heapMb} MiB limit` };
      return { reason: 'exit', detail: `it exited (${signal ?? `code ${code}`})${tail.trim() ? `: ${tail.trim().slice(-600)}` : ''}` };
    }),
  );

  return {
    pid: child.pid,
    pipes,
    post(msg, maxBytes, what) {
      const frame = encodeFrame(msg, maxBytes, what);
      if (!ended) channel.write(frame);
    },
    onMessage(h) {
      handler = h;
      for (const raw of early.splice(0)) h(raw);
    },
    onExit(h) {
      exitHandler = h;
      const e = earlyExit;
      earlyExit = undefined;
      if (e) h(e);
    },
    get ended() {
      return ended;
    },
    keepAlive(on) {
      for (const h of [child, channel, ...pipes] as unknown as { ref?(): void; unref?(): void }[]) (on ? h.ref : h.unref)?.call(h);
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
