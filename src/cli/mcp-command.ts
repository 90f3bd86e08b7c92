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

/** `armature mcp`'s lines of the CLI's usage. */
export const MCP_USAGE = `  armature mcp [--persona ID] [--max-result-bytes N]
                                                  serve the persona's tools to MCP clients over stdio
  armature mcp --http [--port N] [--host H] [--allow-remote] [--allow-origin O] [--allow-host H]
                    [--max-sessions N] [--session-timeout MS]
                                                  ... or over streamable HTTP (loopback unless told)`;

/** `armature mcp`'s options, as the CLI's usage explains them. */
export const MCP_OPTIONS_USAGE = `  --http, --port N, --host H (default 127.0.0.1), --allow-remote
                 mcp: serve over HTTP; a non-loopback host needs --allow-remote and a bearer
                 token of 32+ characters in ARMATURE_MCP_TOKEN (default port 8765)
  --allow-origin O, --allow-host H (each repeatable)
                 mcp --http: web origins whose pages may call it (default none: a request with
                 an Origin header gets 403); Host names it answers to besides loopback and --host
  --max-result-bytes N
                 mcp: a tool result larger than N bytes of JSON is kept in the workspace and
                 sent as a resource_link with a preview (default 1048576)
  --max-sessions N, --session-timeout MS
                 mcp --http: most live sessions (default 100); a session idle MS ms is closed
                 and its Python runtime freed (default 1800000)`;

/** `armature mcp`'s options for the command line's parser (the other commands refuse them: `option-scope.ts`). */
export const MCP_OPTIONS = {
  http: { type: 'boolean', default: false },
  host: { type: 'string' },
  'allow-remote': { type: 'boolean', default: false },
  'allow-origin': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'max-sessions': { type: 'string' },
  'max-result-bytes': { type: 'string' },
  'session-timeout': { type: 'string' },
} as const;

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

/** Options of `armature mcp`, as typed. */
export interface McpCommandOptions {
  http: boolean;
  port?: string;
  host?: string;
  allowRemote: boolean;
  allowOrigin?: string[];
  allowHost?: string[];
  maxSessions?: string;
  sessionTimeout?: string;
  maxResultBytes?: string;
}

/** `armature mcp`'s options from the command line's parsed values. */
export function mcpOptionsFrom(values: {
  http: boolean;
  port?: string;
  host?: string;
  'allow-remote': boolean;
  'allow-origin'?: string[];
  'allow-host'?: string[];
  'max-sessions'?: string;
  'session-timeout'?: string;
  'max-result-bytes'?: string;
}): McpCommandOptions {
  return {
    http: values.http,
    port: values.port,
    host: values.host,
    allowRemote: values['allow-remote'],
    allowOrigin: values['allow-origin'],
    allowHost: values['allow-host'],
    maxSessions: values['max-sessions'],
    sessionTimeout: values['session-timeout'],
    maxResultBytes: values['max-result-bytes'],
  };
}

/** The HTTP-only options that were given, by flag. */
function httpOnlyFlags(o: McpCommandOptions): string[] {
  const given: [string, unknown][] = [
    ['--port', o.port],
    ['--host', o.host],
    ['--allow-remote', o.allowRemote || undefined],
    ['--allow-origin', o.allowOrigin],
    ['--allow-host', o.allowHost],
    ['--max-sessions', o.maxSessions],
    ['--session-timeout', o.sessionTimeout],
  ];
  return given.filter(([, v]) => v !== undefined).map(([flag]) => flag);
}

/** A whole number from `min` given for `flag`, or `undefined` when it was not given. */
function wholeNumber(flag: string, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new UsageError(`${flag} takes a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got ${JSON.stringify(text)}`);
  return n;
}

/** Values of a repeatable flag, each of which may also list several, comma-separated. */
const listOf = (values: string[] | undefined) => values?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

/** `armature mcp`: serves `sys` until the client goes (stdio) or the process is stopped (HTTP). */
export async function runMcpCommand(sys: ArmatureSystem, o: McpCommandOptions, io: CliIo): Promise<number> {
  const httpOnly = httpOnlyFlags(o);
  if (!o.http && httpOnly.length) throw new UsageError(`${httpOnly.join(', ')} ${httpOnly.length > 1 ? 'apply' : 'applies'} to mcp --http; stdio needs none of them`);
  const maxResultBytes = wholeNumber('--max-result-bytes', o.maxResultBytes, 1024);
  const v = await version();
  const { shutdownSignal, graceful } = await import('../mcp/shutdown.ts');
  if (!o.http) {
    const { serveMcpStdio } = await import('../mcp/stdio.ts').catch(peerMissing('@modelcontextprotocol/sdk', 'armature mcp'));
    // The first SIGINT/SIGTERM closes the session (cancelling its runs); the caller then disposes the system.
    const signal = shutdownSignal();
    await serveMcpStdio(sys, { version: v, signal, maxResultBytes });
    // The client closed stdin (or a signal came): what is left — disposing — must not take long.
    if (!signal.aborted) graceful(5000, 'stdin closing');
    return 0;
  }
  const port = wholeNumber('--port', o.port, 0, 65535);
  const maxSessions = wholeNumber('--max-sessions', o.maxSessions, 1);
  const sessionTimeoutMs = wholeNumber('--session-timeout', o.sessionTimeout, 1);
  const { serveMcpHttp } = await import('../mcp/http.ts').catch(peerMissing('@modelcontextprotocol/sdk', 'armature mcp'));
  // The first SIGINT/SIGTERM closes the sessions (cancelling their runs); the caller then disposes the system.
  const signal = shutdownSignal();
  const token = process.env.ARMATURE_MCP_TOKEN || undefined;
  let server;
  try {
    server = await serveMcpHttp(sys, {
      version: v,
      port,
      host: o.host,
      allowRemote: o.allowRemote,
      token,
      allowedOrigins: listOf(o.allowOrigin),
      allowedHosts: listOf(o.allowHost),
      maxSessions,
      sessionTimeoutMs,
      maxResultBytes,
    });
  } catch (e) {
    io.err(`armature: ${describeError(e)}`);
    return /REMOTE|TOKEN|ORIGIN/.test((e as { code?: string }).code ?? '') ? 2 : 1;
  }
  io.out(`Armature MCP server (persona ${sys.persona.id}): ${server.url}${token ? ' (bearer token required)' : ''}`);
  io.out('Press Ctrl+C to stop.');
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
  return 0;
}
