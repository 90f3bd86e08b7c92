// execute_python('1+1') over MCP (target: <= 0.8 ms p50 over stdio), and where its time goes: the
// same run in process through MCP over an in-memory transport, through the ToolRunner, through
// PythonTool, and the runtime's own execute — each in the session an MCP client gets (its own
// runtime of the pool, in a confined child process). Interleaved in blocks of 20, 200 runs each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { boot } from '../src/kernel/boot/boot.ts';
import { createMcpServer } from '../src/mcp/mcp-server.ts';
import { armatureClient, interleaved } from './mcp-stdio.ts';
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
  try {
    const stdio = await armatureClient(dir);
    const sys = await boot({ dataDir: join(dir, 'in-process') });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const server = await createMcpServer(sys);
    await server.server.connect(a);
    const memory = new Client({ name: 'bench', version: '1' });
    await memory.connect(b);
    // The in-memory client's session: its first run binds it a runtime of the pool; the layers below use that session.
    await memory.callTool({ name: 'execute_python', arguments: { code: '1' } });
    const session = 'mcp-1';
    const runtime = await sys.resolve<Runtime>('PyodideRuntime');
    const python = await sys.resolve<Python>('PythonTool');
    const call = { name: 'execute_python', arguments: { code: '1+1' } };
    const r = await interleaved(
      {
        stdio: () => stdio.callTool(call),
        memory: () => memory.callTool(call),
        executeTool: () => sys.tools.executeTool('execute_python', { code: '1+1' }, { session, caller: 'mcp' }),
        pythonTool: () => python.executePython({ code: '1+1', session }),
        runtime: () => runtime.execute('1+1', { session }),
      },
      200,
    );
    await stdio.close();
    await memory.close();
    await server.close();
    await sys.dispose();
    return [
      medianRow('mcp-python', "execute_python('1+1') via armature mcp (stdio, SDK client) p50", r.stdio!.blocks, 'ms', { text: '<= 0.8 ms', pass: (m) => m <= 0.8 }),
      medianRow('mcp-python', 'the same via MCP in process (in-memory transport) p50', r.memory!.blocks, 'ms'),
      medianRow('mcp-python', 'the same via ToolRunner.executeTool (the session) p50', r.executeTool!.blocks, 'ms'),
      medianRow('mcp-python', 'the same via PythonTool.executePython p50', r.pythonTool!.blocks, 'ms'),
      medianRow('mcp-python', "the same via PyodideRuntime.execute (the session's runtime) p50", r.runtime!.blocks, 'ms'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
