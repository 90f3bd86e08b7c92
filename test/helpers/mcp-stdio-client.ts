// The official SDK client connected to `armature mcp` over stdio, as an MCP host runs it: the SDK's
// own StdioClientTransport starts the bin and owns its process, and `client.close()` ends it.
// (A test that must watch how the process itself ends speaks over `child-stdio.ts` instead.)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));

/** How {@link connectStdioClient} starts `armature mcp` and which client it connects. */
export interface StdioClientOptions {
  /** The `--data` folder. Default: a new temporary folder. */
  data?: string;
  /** The folder the process runs in. Default: a new temporary folder. */
  cwd?: string;
  /** Variables added to the SDK's default environment (PATH, HOME and a few more, not this process's whole environment). Default: none. */
  env?: Record<string, string>;
  /** Hears everything the process writes to stderr (its log). Default: stderr is dropped. */
  stderr?: (text: string) => void;
  /** The client to connect, for one with capabilities or request handlers of its own. Default: a new client named `armature-test`. */
  client?: Client;
}

/** Starts `armature mcp --data DATA ...args` over stdio and resolves to the connected client; closing the client ends the process. */
export async function connectStdioClient(args: string[] = [], o: StdioClientOptions = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--data', o.data ?? tempDir('mcp-stdio'), ...args],
    cwd: o.cwd ?? tempDir('mcp-stdio-cwd'),
    ...(o.env ? { env: o.env } : {}),
    stderr: o.stderr ? 'pipe' : 'ignore',
  });
  if (o.stderr) transport.stderr?.on('data', (d) => o.stderr!(String(d)));
  const client = o.client ?? new Client({ name: 'armature-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
