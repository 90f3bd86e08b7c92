/**
 * The MCP side of the CLI: `--mcp-config FILE` (servers for the McpClient, on every command) and
 * `armature mcp` (Armature as an MCP server over stdio, or streamable HTTP with `--http`).
 */
import { readFile } from 'node:fs/promises';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { describeError } from '../kernel/errors.ts';
import type { McpServers } from '../kernel/mcp-servers.ts';
import { parseMcpConfig } from '../kernel/manifests.ts';
import { peerMissing } from '../kernel/optional-peer.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

/** Reads and validates an `--mcp-config` file; a bad file is a usage error naming it and the JSON path. */
export async function readMcpConfig(file: string): Promise<McpServers> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --mcp-config ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  try {
    return parseMcpConfig(file, text);
  } catch (e) {
    throw new UsageError(describeError(e));
  }
}

/** The package's version, reported to MCP clients. */
async function version(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Options of `armature mcp`. */
export interface McpCommandOptions {
  http: boolean;
  port?: string;
  host?: string;
  allowRemote: boolean;
}

/** `armature mcp`: serves `sys` until the client goes (stdio) or the process is stopped (HTTP). */
export async function runMcpCommand(sys: ArmatureSystem, o: McpCommandOptions, io: CliIo): Promise<number> {
  if (!o.http && (o.port !== undefined || o.host !== undefined || o.allowRemote)) throw new UsageError('--port, --host and --allow-remote apply to mcp --http; stdio needs none of them');
  const v = await version();
  if (!o.http) {
    const { serveMcpStdio } = await import('../mcp/stdio.ts').catch(peerMissing('@modelcontextprotocol/sdk', 'armature mcp'));
    await serveMcpStdio(sys, { version: v });
    return 0;
  }
  const port = o.port === undefined ? undefined : Number(o.port);
  if (o.port !== undefined && (!/^\d+$/.test(o.port) || port! > 65535)) throw new UsageError(`--port takes a whole number from 0 to 65535, got ${JSON.stringify(o.port)}`);
  const { serveMcpHttp } = await import('../mcp/http.ts').catch(peerMissing('@modelcontextprotocol/sdk', 'armature mcp'));
  const token = process.env.ARMATURE_MCP_TOKEN || undefined;
  let server;
  try {
    server = await serveMcpHttp(sys, { version: v, port, host: o.host, allowRemote: o.allowRemote, token });
  } catch (e) {
    io.err(`armature: ${describeError(e)}`);
    return /REMOTE|TOKEN/.test((e as { code?: string }).code ?? '') ? 2 : 1;
  }
  io.out(`Armature MCP server (persona ${sys.persona.id}): ${server.url}${token ? ' (bearer token required)' : ''}`);
  io.out('Press Ctrl+C to stop.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return 0;
}
