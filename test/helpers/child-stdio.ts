// `armature mcp` over stdio as a child process the test owns, for the official SDK client: the SDK's
// StdioClientTransport hides its process (its close() ends stdin, then sends SIGTERM and SIGKILL
// on a clock), so a test that must see how the process itself ends — by itself after stdin closed,
// or after one SIGTERM, with which exit code — speaks over this transport instead. Framing is the
// SDK's own (`ReadBuffer`, `serializeMessage`, the same 10 MiB line limit as its client).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));

/** A running `armature mcp` child and a transport over its stdio. */
export interface McpChild {
  child: ChildProcess;
  transport: Transport;
  /** Resolves once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Lines of stdout that were not JSON-RPC messages (a half-written one included). */
  garbled: string[];
}

/** Starts `armature mcp ...args` (stdio) in `cwd`. */
export function startMcpChild(args: string[], cwd: string, env: Record<string, string> = {}): McpChild {
  const child = spawn(process.execPath, [bin, 'mcp', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const garbled: string[] = [];
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      child.stdout!.on('data', (chunk: Buffer) => {
        try {
          buffer.append(chunk);
        } catch (e) {
          garbled.push((e as Error).message);
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (e) {
            garbled.push(String((e as Error).message).slice(0, 200));
            continue;
          }
          if (!message) break;
          transport.onmessage?.(message);
        }
      });
      child.stdout!.once('end', () => {
        // What is left without a newline was cut off mid-message.
        const rest = (buffer as unknown as { _buffer?: Buffer })._buffer;
        if (rest?.length) garbled.push(rest.toString('utf8', 0, 200));
        transport.onclose?.();
      });
    },
    async send(message) {
      child.stdin!.write(serializeMessage(message));
    },
    async close() {
      child.stdin!.end();
    },
  };
  return { child, transport, exited, stderr: () => err, garbled };
}
