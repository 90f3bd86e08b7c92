/**
 * `armature mcp` over stdio: the MCP server on stdin/stdout until the client closes stdin (or the
 * caller's signal aborts: the CLI's SIGINT/SIGTERM). Closing the session cancels its runs; stdin is
 * then let go, so nothing of the session keeps the process alive. stdout carries only protocol
 * messages: anything else the process would print there (a stray log line) is sent to stderr
 * instead. A message over 4 MiB is refused with an error and the session goes on (`stdio-limit.ts`).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { createMcpServer, type McpServerOptions } from './mcp-server.ts';
import { limitedInput } from './stdio-limit.ts';

/** Options of {@link serveMcpStdio}. */
export interface McpStdioOptions extends McpServerOptions {
  /** Ends the session when it aborts (e.g. at SIGTERM). Default: none (until stdin closes). */
  signal?: AbortSignal;
}

/** Serves `sys` over this process's stdio; resolves once the client has gone (or `signal` aborted) and the session is closed. */
export async function serveMcpStdio(sys: ArmatureSystem, options: McpStdioOptions = {}): Promise<void> {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  // What the transport writes goes to the real stdout (waiting for 'drain' there); everything else
  // the process would print is sent to stderr.
  const protocol = { write: (text: string) => write(text), once: (event: string, listener: () => void) => stdout.once(event, listener) };
  stdout.write = ((...args: Parameters<typeof stdout.write>) => process.stderr.write(...(args as [string]))) as typeof stdout.write;
  const { server, close } = await createMcpServer(sys, options);
  // One line at most 4 MiB, as over HTTP: a longer one is answered with an error, never held.
  const input = limitedInput(process.stdin, (answer) => void write(answer));
  try {
    await server.connect(new StdioServerTransport(input as unknown as typeof process.stdin, protocol as unknown as typeof process.stdout));
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      process.stdin.once('end', done);
      process.stdin.once('close', done);
      if (options.signal?.aborted) done();
      options.signal?.addEventListener('abort', done, { once: true });
    });
  } finally {
    // Closing the session aborts its requests in flight: their runs are cancelled.
    await close();
    input.detach();
    // An open stdin (a signal came while the client still holds it) would keep the process up.
    process.stdin.destroy();
    stdout.write = write;
  }
}
