// What the MCP benchmarks share: SDK clients over stdio to `armature mcp` and to
// server-everything, a wait for the server's Python pool to be done starting runtimes in the
// background (read from the server's process journal), and timing helpers that interleave the
// things compared (blocks of calls in turn), so a machine busy for a moment costs each the same.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { PythonPoolState } from '../src/contracts/python-events.ts';
import { processesDir } from '../src/kernel/journal/journal-layout.ts';
import { ProcessTail } from '../src/kernel/journal/process-tail.ts';
import { SERVER_BINS } from '../test/helpers/mcp-servers.ts';

const bin = fileURLToPath(new URL('../bin/armature.js', import.meta.url));

/**
 * A reader of the last state of the Python pool that the processes on `dataDir` wrote to their
 * journals: each call reads what they appended since the one before (the journals' own reader).
 */
export function poolReader(dataDir: string): () => PythonPoolState | undefined {
  const tails = new Map<string, ProcessTail>();
  let last: { at: number; seq: number; pool: PythonPoolState } | undefined;
  return () => {
    let folders: string[] = [];
    try {
      folders = readdirSync(processesDir(dataDir));
    } catch {
      return undefined;
    }
    for (const folder of folders) {
      let tail = tails.get(folder);
      if (!tail) tails.set(folder, (tail = new ProcessTail(join(processesDir(dataDir), folder), Number.MAX_SAFE_INTEGER)));
      for (const r of tail.read()) {
        if (r.type !== 'python:pool') continue;
        if (!last || r.at > last.at || (r.at === last.at && r.seq > last.seq)) last = { at: r.at, seq: r.seq, pool: r.payload as PythonPoolState };
      }
    }
    return last?.pool;
  };
}

/**
 * A settled pool: nothing runs or waits, and every runtime started is ready, either bound to a
 * session or a warm spare (none is still starting in the background).
 */
export const POOL_SETTLED = (p: PythonPoolState): boolean => p.busy === 0 && p.queued === 0 && p.workers === p.spares + p.sessions;
/**
 * Waits until the Python pool that `read` reports (e.g. a {@link poolReader} of `armature mcp`'s
 * data folder) is as `settled` says, calling `poke` between looks (e.g. a run, to keep a
 * session's runtime bound), so that no runtime starting in the background competes with what is
 * measured next. Fails after `timeoutMs`.
 */
export async function poolSettled(read: () => PythonPoolState | undefined, settled: (p: PythonPoolState) => boolean, poke?: () => Promise<unknown>, timeoutMs = 60_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    await poke?.();
    const pool = read();
    if (pool && settled(pool)) return;
    if (performance.now() > until) throw new Error(`the Python pool did not settle within ${timeoutMs} ms: last state ${JSON.stringify(pool)}`);
    await sleep(25);
  }
}

/**
 * The SDK client over stdio to `armature mcp` (data in `dir/data`), once Python has started;
 * with `settled`, also once its pool is settled (see {@link POOL_SETTLED}).
 */
export async function armatureClient(dir: string, args: string[] = [], settled = false): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  const data = join(dir, 'data');
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--data', data, ...args], stderr: 'ignore' }));
  // Python starts in the background of `armature mcp`: let it finish, so it does not compete.
  await client.callTool({ name: 'execute_python', arguments: { code: '1' } });
  if (settled) await poolSettled(poolReader(data), POOL_SETTLED);
  return client;
}

/** The SDK client over stdio to server-everything. */
export async function everythingClient(): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER_BINS.everything], stderr: 'ignore' }));
  return client;
}

/**
 * Times each of `ways` `calls` times in blocks of `block`, the ways taking turns block by block;
 * returns every sample (ms) and each block's median, by way. `warmup` calls of each come first
 * (default: one block), unmeasured.
 */
export async function interleaved(ways: Record<string, () => Promise<unknown>>, calls: number, block = 20, warmup = block): Promise<Record<string, { samples: number[]; blocks: number[] }>> {
  const out = Object.fromEntries(Object.keys(ways).map((k) => [k, { samples: [] as number[], blocks: [] as number[] }]));
  // In turns too: a way left idle for long could lose what it warmed (a session's runtime is let go after a second).
  for (let done = 0; done < warmup; done += block) for (const f of Object.values(ways)) for (let i = 0; i < Math.min(block, warmup - done); i++) await f();
  for (let done = 0; done < calls; done += block) {
    for (const [k, f] of Object.entries(ways)) {
      const times: number[] = [];
      for (let i = 0; i < block; i++) {
        const t0 = performance.now();
        await f();
        times.push(performance.now() - t0);
      }
      out[k]!.samples.push(...times);
      out[k]!.blocks.push([...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!);
    }
  }
  return out;
}
