// execute_python('1+1') over MCP (target: <= 0.8 ms p50 over stdio), and where its time goes: the
// same run in process through MCP over an in-memory transport, through the ToolRunner, through
// PythonTool, and the runtime's own execute — each in the session an MCP client gets (its own
// runtime of the pool, in a confined child process). Interleaved in blocks of 20, 200 runs each,
// once the server's pool has settled (the session's runtime bound, the spare that replaced it
// ready) and after 1,000 runs of each way (what a server that runs for days answers); the stdio
// runs right after the start are a row of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { boot } from '../src/kernel/boot/boot.ts';
import { createMcpServer } from '../src/mcp/mcp-server.ts';
import type { PythonPoolState } from '../src/contracts/python-events.ts';
import { armatureClient, interleaved, poolReader, POOL_SETTLED, poolSettled } from './mcp-stdio.ts';
import { medianRow, type BenchRow } from './types.ts';

/** What the rows need of PyodideRuntime and PythonTool, structurally. */
interface Runtime {
  execute(code: string, o: { session: string }): Promise<unknown>;
}
interface Python {
  executePython(a: { code: string; session: string }): Promise<unknown>;
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'armature-bench-mcp-python-'));
  // Closed last to first, also when a measurement fails (a client left open keeps the run alive).
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const stdio = await armatureClient(dir);
    closers.push(() => stdio.close());
    const call = { name: 'execute_python', arguments: { code: '1+1' } };
    const early = await interleaved({ stdio: () => stdio.callTool(call) }, 200);
    const sys = await boot({ dataDir: join(dir, 'in-process') });
    closers.push(() => sys.dispose());
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = await createMcpServer(sys);
    await server.server.connect(a);
    closers.push(() => server.close());
    const memory = new Client({ name: 'bench', version: '1' });
    await memory.connect(b);
    closers.push(() => memory.close());
    // The in-memory client's session: its first run binds it a runtime of the pool; the layers below use that session.
    // Both pools settled (each session's runtime bound, the spare that replaced it ready), then measured at once.
    let inProcessPool: PythonPoolState | undefined;
    const watching = sys.bus.on('python:pool', (p) => (inProcessPool = p));
    await poolSettled(() => inProcessPool, POOL_SETTLED, () => memory.callTool(call));
    await poolSettled(poolReader(join(dir, 'data')), POOL_SETTLED, () => Promise.all([stdio.callTool(call), memory.callTool(call)]));
    watching.dispose();
    const session = 'mcp-1';
    const runtime = await sys.resolve<Runtime>('PyodideRuntime');
    const python = await sys.resolve<Python>('PythonTool');
    const r = await interleaved(
      {
        stdio: () => stdio.callTool(call),
        memory: () => memory.callTool(call),
        executeTool: () => sys.tools.executeTool('execute_python', { code: '1+1' }, { session, caller: 'mcp' }),
        pythonTool: () => python.executePython({ code: '1+1', session }),
        runtime: () => runtime.execute('1+1', { session }),
      },
      200,
      20,
      1000,
    );
    return [
      medianRow('mcp-python', "execute_python('1+1') via armature mcp (stdio, SDK client), warm, p50", r.stdio!.blocks, 'ms', { text: '<= 0.8 ms', pass: (m) => m <= 0.8 }),
      medianRow('mcp-python', 'the same via armature mcp right after the start (Python warming, 20 runs first) p50', early.stdio!.blocks, 'ms'),
      medianRow('mcp-python', 'the same via MCP in process (in-memory transport) p50', r.memory!.blocks, 'ms'),
      medianRow('mcp-python', 'the same via ToolRunner.executeTool (the session) p50', r.executeTool!.blocks, 'ms'),
      medianRow('mcp-python', 'the same via PythonTool.executePython p50', r.pythonTool!.blocks, 'ms'),
      medianRow('mcp-python', "the same via PyodideRuntime.execute (the session's runtime) p50", r.runtime!.blocks, 'ms'),
    ];
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
