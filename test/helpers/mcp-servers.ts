// The reference MCP servers from npm (dev dependencies), as tests start them: over stdio with the
// current Node, rooted in temporary folders, and "everything" over HTTP on loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServers } from '../../src/kernel/mcp-servers.ts';

const require = createRequire(import.meta.url);
const bin = (pkg: string) => join(dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`)), 'dist/index.js');

/** Entry scripts of the three reference servers. */
export const SERVER_BINS = { memory: bin('server-memory'), filesystem: bin('server-filesystem'), everything: bin('server-everything') };

/** `mcpServers` for the three reference servers over stdio: memory keeps its graph in `dir`, filesystem may only touch `dir`. */
export function referenceServers(dir: string): McpServers {
  return {
    memory: { command: process.execPath, args: [SERVER_BINS.memory], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    filesystem: { command: process.execPath, args: [SERVER_BINS.filesystem, dir], env: {} },
    everything: { command: process.execPath, args: [SERVER_BINS.everything], env: {} },
  };
}

/** A running HTTP "everything" server. */
export interface HttpEverything {
  url: string;
  port: number;
  process: ChildProcess;
  close(): Promise<void>;
}

/** Starts "everything" over streamable HTTP on 127.0.0.1 (`port` 0 picks one); `cors` allows any origin. */
export function startHttpEverything(options: { port?: number; cors?: boolean } = {}): Promise<HttpEverything> {
  const script = fileURLToPath(new URL('../fixtures/everything-http.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, ...(options.cors ? ['--cors'] : [])], { env: { ...process.env, PORT: String(options.port ?? 0) }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`everything-http exited with ${code}: ${out}`)));
    child.stderr!.on('data', (d) => (out += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      const port = Number(m[1]);
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        port,
        process: child,
        close: () => new Promise<void>((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill()))),
      });
    });
  });
}
