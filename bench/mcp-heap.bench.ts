// Heap per idle MCP session over HTTP: `armature mcp --http`'s server in a child process with
// --expose-gc (test/fixtures/mcp-http-heap.ts), heap after collection with no session, then with
// 200 sessions initialized by the SDK client and left idle; repeated 3 times (a new child each).
// Python is not started: the row is what a session costs the server, not a runtime's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { medianRow, type BenchRow } from './types.ts';

const sourceHooks = new URL('../src/platform/source-hooks.mjs', import.meta.url).href;
const fixture = fileURLToPath(new URL('../test/fixtures/mcp-http-heap.ts', import.meta.url));
const SESSIONS = 200;

/** Heap (bytes) with none and with SESSIONS idle sessions, in one fresh server. */
async function once(dir: string): Promise<{ none: number; idle: number }> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', sourceHooks, fixture, dir, String(3_600_000)], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((l: string) => void)[] = [];
  lines.on('line', (l) => waiting.shift()?.(l));
  const next = () => new Promise<string>((r) => waiting.push(r));
  const url = new URL((await next()).slice('url '.length));
  const heap = async () => {
    const answer = next();
    child.stdin!.write('heap\n');
    return Number((await answer).split(' ')[1]);
  };
  try {
    // One session opened and ended first: code compiled and caches filled, as in a running server.
    const warm = new Client({ name: 'bench', version: '1' });
    const t = new StreamableHTTPClientTransport(url);
    await warm.connect(t);
    await warm.listTools();
    await t.terminateSession();
    await warm.close();
    const none = await heap();
    const clients: Client[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const c = new Client({ name: 'bench', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(url));
      clients.push(c);
    }
    // The clients go away without DELETE, leaving their sessions idle on the server.
    await Promise.all(clients.map((c) => c.close()));
    return { none, idle: await heap() };
  } finally {
    child.stdin!.end();
    await new Promise((r) => child.once('exit', r));
  }
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'armature-bench-mcp-heap-'));
  try {
    const perSession: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { none, idle } = await once(join(dir, String(i)));
      perSession.push((idle - none) / SESSIONS / 1024);
    }
    return [medianRow('mcp-heap', `heap per idle HTTP session (${SESSIONS} sessions, after GC; 3 servers)`, perSession, 'KB')];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
