/**
 * `armature mcp --http`: the MCP server over streamable HTTP at `/mcp`, one session (and one MCP
 * server object) per client, all on one booted system. Loopback only by default, with the Host
 * header checked against DNS rebinding; another interface needs `allowRemote` and a bearer token.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { ArmatureError } from '../kernel/errors.ts';
import { createMcpServer, type McpServerOptions } from './mcp-server.ts';

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions extends McpServerOptions {
  /** Interface to listen on. Default: `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one. Default: 8765. */
  port?: number;
  /** Listen on a non-loopback host. Default: false. */
  allowRemote?: boolean;
  /** Bearer token every request must carry (`Authorization: Bearer <token>`); required with `allowRemote`. Default: none. */
  token?: string;
}

/** A running HTTP MCP server. */
export interface McpHttpServer {
  /** E.g. `http://127.0.0.1:8765/mcp`. */
  url: string;
  /** Open sessions. */
  sessions(): number;
  close(): Promise<void>;
}

/** Whether `host` is a loopback address or name. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Starts the server; rejects with `MCP_REMOTE_NOT_ALLOWED` or `MCP_TOKEN_REQUIRED` for an unsafe setup. */
export async function serveMcpHttp(sys: ArmatureSystem, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (!loopback && !options.allowRemote)
    throw new ArmatureError('MCP_REMOTE_NOT_ALLOWED', `[mcp] --host ${host} is not a loopback address: anyone who can reach it could run code here. Pass --allow-remote (with a token in ARMATURE_MCP_TOKEN) to mean it, or use --host 127.0.0.1`);
  if (!loopback && !options.token)
    throw new ArmatureError('MCP_TOKEN_REQUIRED', `[mcp] serving on ${host} needs a bearer token: set ARMATURE_MCP_TOKEN to a long random string (e.g. \`openssl rand -hex 32\`) and give it to your clients as "Authorization: Bearer <token>"`);
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; close(): Promise<void> }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return reply(res, 404, `no endpoint ${url.pathname}; the MCP endpoint is /mcp`);
    // A page on another site can make a browser send requests to loopback; its Host header gives it away.
    const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (loopback && !isLoopback(hostname)) return reply(res, 403, `Host ${JSON.stringify(req.headers.host)} is not allowed: this server answers loopback names only`);
    if (options.token) {
      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!auth || !sameToken(auth, options.token)) return reply(res, 401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer realm="armature"' });
    }
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!session) {
      if (id !== undefined) return reply(res, 404, `unknown session ${JSON.stringify(id)}: start a new one (initialize without mcp-session-id)`);
      const mcp = await createMcpServer(sys, options);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void sessions.set(sid, { transport, close: mcp.close }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void mcp.close();
      };
      await mcp.server.connect(transport);
      session = { transport, close: mcp.close };
    }
    await session.transport.handleRequest(req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) reply(res, 500, `internal error: ${(e as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new ArmatureError('PORT_IN_USE', `[mcp] port ${options.port ?? 8765} is in use: pass --port N (or 0 for any free port)`) : e),
    );
    http.listen(options.port ?? 8765, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}/mcp`,
    sessions: () => sessions.size,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
