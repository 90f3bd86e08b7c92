/**
 * Drives `test/fixtures/live-system.ts`: a booted system in a process of its own that stays up
 * while other processes (the CLI) work on the same data folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import { until } from './until.ts';

const fixture = fileURLToPath(new URL('../fixtures/live-system.ts', import.meta.url));
const hooks = new URL('../../src/platform/source-hooks.mjs', import.meta.url).href;

/** A change event as the live system reports it. */
export interface LiveEvent {
  event: string;
  change?: { id: string; target: string; status?: string; version: number | null };
  /** When it arrived here (performance.now()). */
  seenAt: number;
}

/** A running live system. */
export interface LiveSystem {
  child: ChildProcess;
  events: LiveEvent[];
  /** Everything it wrote to stderr. */
  stderr(): string;
  /** A tool call there (caller `agent` unless given). */
  call<T = unknown>(name: string, args: Record<string, unknown>, caller?: string): Promise<ToolResult<T>>;
  /** A person's approval there, as the command line gives it. */
  approve(id: string): Promise<{ ok: boolean; value?: { status: string }; error?: { message: string } }>;
  /** Waits until an event matching `match` arrived. */
  waitFor(what: string, match: (e: LiveEvent) => boolean, ms?: number): Promise<LiveEvent>;
  /** Ends it (closes its input, then kills it if it lingers); resolves once it exited. */
  close(): Promise<void>;
}

/** Starts a live system on `dataDir`; resolves once it has booted. `env` adds to its environment. */
export async function startLiveSystem(dataDir: string, env: Record<string, string> = {}): Promise<LiveSystem> {
  const child = spawn(process.execPath, ['--import', hooks, fixture, dataDir], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const events: LiveEvent[] = [];
  const answers = new Map<number, (r: unknown) => void>();
  let ready = false;
  let err = '';
  let exited = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => {
    buffer += s;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      let msg: { ready?: boolean; id?: number; result?: unknown; event?: string };
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (msg.ready) ready = true;
      else if (msg.event) events.push({ ...(msg as LiveEvent), seenAt: performance.now() });
      else if (typeof msg.id === 'number') answers.get(msg.id)?.(msg.result);
    }
  });
  await until(() => `the live system to boot (stderr: ${err.slice(-2000)})`, () => ready || exited, 120_000);
  if (!ready) throw new Error(`the live system exited before it booted: ${err.slice(-2000)}`);
  let next = 1;
  const send = (msg: Record<string, unknown>) =>
    new Promise<never>((resolve) => {
      const id = next++;
      answers.set(id, resolve as (r: unknown) => void);
      child.stdin!.write(`${JSON.stringify({ ...msg, id })}\n`);
    });
  return {
    child,
    events,
    stderr: () => err,
    call: (name, args, caller = 'agent') => send({ name, args, caller }),
    approve: (id) => send({ approve: id }),
    async waitFor(what, match, ms = 15_000) {
      await until(() => `${what} (events: ${JSON.stringify(events.map((e) => [e.event, e.change?.id]))})`, () => events.some(match), ms);
      return events.find(match)!;
    },
    async close() {
      if (exited) return;
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
