// What the MCP benchmarks share: SDK clients over stdio to `armature mcp` and to
// server-everything, and timing helpers that interleave the things compared (blocks of calls in
// turn), so a machine busy for a moment costs each the same.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_BINS } from '../test/helpers/mcp-servers.ts';

const bin = fileURLToPath(new URL('../bin/armature.js', import.meta.url));

/** The SDK client over stdio to `armature mcp` (data in `dir`), once Python has started. */
export async function armatureClient(dir: string, args: string[] = []): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--data', join(dir, 'data'), ...args], stderr: 'ignore' }));
  // Python starts in the background of `armature mcp`: let it finish, so it does not compete.
  await client.callTool({ name: 'execute_python', arguments: { code: '1' } });
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
 * returns every sample (ms) and each block's median, by way. A warm-up block of each comes first.
 */
export async function interleaved(ways: Record<string, () => Promise<unknown>>, calls: number, block = 20): Promise<Record<string, { samples: number[]; blocks: number[] }>> {
  const out = Object.fromEntries(Object.keys(ways).map((k) => [k, { samples: [] as number[], blocks: [] as number[] }]));
  for (const f of Object.values(ways)) for (let i = 0; i < block; i++) await f();
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
