/**
 * How a server is reached: a child process over stdio (Node only) or streamable HTTP (Node and
 * browsers; SSE for servers configured with `"type": "sse"`). The SDK's transports are imported on
 * first use, so a persona without MCP servers loads none of them, and the stdio one (which spawns
 * processes) never reaches a browser bundle. The SDK is an optional peer: without it a server
 * fails to start with `PEER_MISSING`, naming the package to install.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { peerMissing } from '../../src/kernel/optional-peer.ts';
import type { McpServerSpec } from '../../src/kernel/mcp-servers.ts';

/** An opened (not yet started) transport and what to say about it. */
export interface OpenedTransport {
  transport: Transport;
  kind: 'stdio' | 'http';
  /** The last lines the server wrote to stderr (stdio), secrets redacted. */
  stderrTail(): string;
}

/** The secret values of a spec (env and header values), to keep them out of every message. */
export function secretsOf(spec: McpServerSpec): string[] {
  const values = 'command' in spec ? Object.values(spec.env) : Object.values(spec.headers);
  // Short values ("1", "true") are settings, not secrets; replacing them would garble messages.
  return values.filter((v) => v.length >= 6);
}

/** `text` with every secret replaced by `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}

/** What the widget and `armature boot` show for a server: the command line, or the URL without credentials or query. */
export function describeTarget(spec: McpServerSpec): string {
  if ('command' in spec) return redact([spec.command, ...spec.args].join(' '), secretsOf(spec));
  try {
    const u = new URL(spec.url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return spec.url;
  }
}

/** Opens the transport for `spec` (see the module comment). */
export async function openTransport(spec: McpServerSpec, platformKind: 'node' | 'browser'): Promise<OpenedTransport> {
  const secrets = secretsOf(spec);
  if ('command' in spec) {
    if (platformKind !== 'node') {
      throw new ArmatureError('MCP_STDIO_UNAVAILABLE', `a stdio server (${describeTarget(spec)}) can only be started from Node; in the browser, reach it over HTTP with "url"`, {
        hint: 'Run the server with an HTTP transport that allows this page\'s origin (CORS), and configure { "url": ... } instead of { "command": ... }.',
      });
    }
    const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js').catch(peerMissing('@modelcontextprotocol/sdk', 'McpClient'));
    // Only a minimal environment plus the configured variables: the host's secrets stay here.
    const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: { ...getDefaultEnvironment(), ...spec.env }, cwd: spec.cwd, stderr: 'pipe' });
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer | string) => {
      tail = (tail + chunk.toString()).slice(-4000);
    });
    return { transport, kind: 'stdio', stderrTail: () => redact(tail, secrets).trim().split('\n').slice(-6).join('\n').slice(-600) };
  }
  const url = new URL(spec.url);
  const requestInit = { headers: spec.headers };
  if (spec.type === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js').catch(peerMissing('@modelcontextprotocol/sdk', 'McpClient'));
    return { transport: new SSEClientTransport(url, { requestInit }), kind: 'http', stderrTail: () => '' };
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js').catch(peerMissing('@modelcontextprotocol/sdk', 'McpClient'));
  return { transport: new StreamableHTTPClientTransport(url, { requestInit }), kind: 'http', stderrTail: () => '' };
}
