// `armature mcp --http` as a child process: started with `--port 0` and resolved once it prints its
// URL, with everything it wrote and how it ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));

/** A running `armature mcp --http`. */
export interface McpHttpChild {
  child: ChildProcess;
  url: string;
  /** What it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once it has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
}

/** Starts `armature mcp --http --port 0 ...args`; `data` defaults to a new temporary folder, `log` hears all it writes. */
export function startMcpHttpChild(args: string[], o: { env?: Record<string, string>; cwd?: string; data?: string; log?: (text: string) => void } = {}): Promise<McpHttpChild> {
  const child = spawn(process.execPath, [bin, 'mcp', '--http', '--port', '0', '--data', o.data ?? tempDir('mcp-http'), ...args], {
    cwd: o.cwd ?? tempDir('mcp-http-cwd'),
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let out = '';
  return new Promise((resolve, reject) => {
    void exited.then(({ code }) => reject(new Error(`armature mcp --http exited with ${code}: ${out}`)));
    const hear = (d: Buffer) => {
      out += d;
      o.log?.(String(d));
      const url = /(http:\/\/[^\s]+\/mcp)/.exec(out)?.[1];
      if (url) resolve({ child, url, output: () => out, exited, stop: async () => void (child.kill(), await exited) });
    };
    child.stdout!.on('data', hear);
    child.stderr!.on('data', hear);
  });
}
