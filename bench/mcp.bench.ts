// MCP, side by side: a tiny tool call through `armature mcp` over stdio (a real child process, the
// SDK client) against server-everything's `echo` over stdio (interleaved, 200 calls each; target:
// <= 1.1x) and against the same call in process (MCP over an in-memory transport, and the
// ToolRunner directly); tools/list with 100 tools; and the prompt fragment against the schemas it
// replaces with the three reference servers loaded (target: <= 5%). execute_python over MCP and
// the heap of idle sessions are in mcp-python.bench.ts and mcp-heap.bench.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { boot, type ArmatureSystem } from '../src/kernel/boot/boot.ts';
import type { ToolDeclaration } from '../src/kernel/manifest-schemas.ts';
import { createMcpServer } from '../src/mcp/mcp-server.ts';
import { formatTools } from '../src/tools-format/format-tools.ts';
import { referenceServers } from '../test/helpers/mcp-servers.ts';
import { armatureClient, everythingClient, interleaved, poolReader, POOL_SETTLED, poolSettled } from './mcp-stdio.ts';
import { medianRow, percentile, type BenchRow } from './types.ts';

async function time(fn: () => Promise<unknown>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** p50 and the p5–p95 range of `ms`, as rows. */
function rows(name: string, ms: number[], unit: 'ms' | 'µs', target?: { text: string; pass: boolean }): BenchRow[] {
  const k = unit === 'µs' ? 1000 : 1;
  return [
    { suite: 'mcp', name: `${name} p50`, value: percentile(ms, 50) * k, unit, ...(target ? { target: target.text, pass: target.pass } : {}) },
    { suite: 'mcp', name: `${name} p5–p95`, value: (percentile(ms, 95) - percentile(ms, 5)) * k, unit },
  ];
}

/** An MCP client connected in process to an MCP server over `sys`. */
async function inProcessClient(sys: ArmatureSystem): Promise<{ client: Client; close(): Promise<void> }> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = await createMcpServer(sys);
  await server.server.connect(a);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(b);
  return { client, close: async () => (await client.close(), await server.close()) };
}

/** 100 tools with schemas the size real servers have. */
function hundredTools(): ToolDeclaration[] {
  return Array.from({ length: 100 }, (_, i) => ({
    name: `bench.tool_${i}`,
    namespace: 'bench',
    module: 'McpClient',
    pythonCallable: true,
    description: `Does thing ${i}; returns the result as structured content.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'A path.' }, limit: { type: 'integer', minimum: 1, default: 10 }, tags: { type: 'array', items: { type: 'string' } } }, required: ['path'] },
    outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  }));
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'armature-bench-mcp-'));
  const out: BenchRow[] = [];
  try {
    const N = 300;
    // 1. A tiny call over stdio, Armature's (list_files on an empty workspace) and server-everything's
    // echo, in turns of 20 calls, 200 each: the block medians give the median and its range. First
    // as a client right after the start sees it (20 calls each first; Python's spare runtime may
    // still be starting in the background, and neither server's code is optimised yet), then with
    // both servers warm: the server's Python pool settled and 1,000 calls each first. The target
    // is the warm ratio: what a server that runs for days answers.
    const stdio = await armatureClient(join(dir, 'stdio'));
    const everything = await everythingClient();
    const ways = {
      armature: () => stdio.callTool({ name: 'list_files', arguments: {} }),
      everything: () => everything.callTool({ name: 'echo', arguments: { message: 'hi' } }),
    };
    let early: Awaited<ReturnType<typeof interleaved>>;
    let warm: typeof early;
    try {
      early = await interleaved(ways, 200);
      await poolSettled(poolReader(join(dir, 'stdio', 'data')), POOL_SETTLED);
      warm = await interleaved(ways, 200, 20, 1000);
    } finally {
      await stdio.close();
      await everything.close();
    }
    const ratio = (r: typeof warm) => percentile(r.armature!.samples, 50) / percentile(r.everything!.samples, 50);
    const perBlock = (r: typeof warm) => r.armature!.blocks.map((b, i) => b / r.everything!.blocks[i]!);
    out.push(
      medianRow('mcp', 'tiny call via armature mcp (stdio, SDK client: list_files), warm, p50', warm.armature!.blocks, 'ms'),
      medianRow('mcp', "server-everything's echo (stdio, same client), warm, p50", warm.everything!.blocks, 'ms'),
      { ...medianRow('mcp', 'armature / echo, warm (per block, interleaved, 200 calls each)', perBlock(warm), 'x'), value: ratio(warm), target: '<= 1.1x', pass: ratio(warm) <= 1.1 },
      medianRow('mcp', 'tiny call via armature mcp, right after start, p50', early.armature!.blocks, 'ms'),
      medianRow('mcp', "server-everything's echo, right after start, p50", early.everything!.blocks, 'ms'),
      { ...medianRow('mcp', 'armature / echo, right after start (per block)', perBlock(early), 'x'), value: ratio(early) },
    );
    const sys = await boot({ dataDir: join(dir, 'direct'), config: { PyodideRuntime: { autoStart: false } } });
    const mem = await inProcessClient(sys);
    await time(() => mem.client.callTool({ name: 'list_files', arguments: {} }), 50);
    const inMemory = await time(() => mem.client.callTool({ name: 'list_files', arguments: {} }), N);
    await time(() => sys.tools.executeTool('list_files', {}), 50);
    const direct = await time(() => sys.tools.executeTool('list_files', {}), N);
    out.push(...rows('tiny call via MCP in process (in-memory transport)', inMemory, 'ms'), ...rows('tiny call direct (ToolRunner.executeTool)', direct, 'µs'));

    // 2. tools/list with 100 more tools.
    const registration = sys.tools.registerTools(hundredTools(), () => ({ ok: true }));
    const count = (await mem.client.listTools()).tools.length;
    // The request alone (server and transport), then as client.listTools(), which also compiles a
    // validator for every output schema.
    const request = await time(() => mem.client.request({ method: 'tools/list' }, ListToolsResultSchema), 100);
    const list = await time(() => mem.client.listTools(), 100);
    const convert = await time(async () => formatTools(sys.tools.getToolDeclarations(), 'mcp'), 100);
    out.push(
      ...rows(`tools/list with ${count} tools, request round trip (in process)`, request, 'ms'),
      ...rows(`the same via client.listTools (SDK compiles output validators)`, list, 'ms'),
      ...rows(`the same declarations converted (formatTools mcp)`, convert, 'ms'),
    );
    registration.dispose();
    await mem.close();
    await sys.dispose();

    // 3. Prompt against schemas, with the three reference servers.
    const withServers = await boot({ dataDir: join(dir, 'servers'), config: { PyodideRuntime: { autoStart: false }, McpClient: { servers: referenceServers(dir) } } });
    const python = await withServers.resolve<{ getPromptStats(): { promptChars: number; schemaChars: number; ratio: number; tools: number } }>('PythonTool');
    const s = python.getPromptStats();
    const listed = JSON.stringify(formatTools(withServers.tools.getToolDeclarations(), 'mcp').tools).length;
    out.push(
      { suite: 'mcp', name: `prompt fragment, ${s.tools} tools (3 servers + built-ins)`, value: s.promptChars, unit: 'chars' },
      { suite: 'mcp', name: 'their JSON schemas (name, description, input schema)', value: s.schemaChars, unit: 'chars' },
      { suite: 'mcp', name: 'their full MCP tools/list (with output schemas, annotations)', value: listed, unit: 'chars' },
      { suite: 'mcp', name: 'prompt / schemas', value: s.ratio * 100, unit: '%', target: '<= 5%', pass: s.ratio <= 0.05 },
    );
    await withServers.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
