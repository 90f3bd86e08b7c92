/**
 * `armature mcp --http`: the MCP server over streamable HTTP at `/mcp`, one session (and one MCP
 * server object) per client, all on one booted system. Every request is checked first (Host,
 * Origin, token: `http-guard.ts`); a request without a session id starts one only when it is a
 * well-formed `initialize` and there is room (`http-sessions.ts`) — anything else is answered
 * without building anything, so refused requests cost no memory. Sessions left idle expire.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { ArmatureError } from '../kernel/errors.ts';
import { createHttpGuard, isLoopback, MIN_REMOTE_TOKEN_LENGTH, type Refusal } from './http-guard.ts';
import { SessionTable, type HttpSession } from './http-sessions.ts';
import { createMcpServer, type McpServerOptions } from './mcp-server.ts';
import { MAX_STDIO_MESSAGE_BYTES } from './stdio-limit.ts';

export { isLoopback } from './http-guard.ts';

/** Default of {@link McpHttpOptions.sessionTimeoutMs}: 30 minutes. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30 * 60_000;
/** Default of {@link McpHttpOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 100;

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions extends McpServerOptions {
  /** Interface to listen on. Default: `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one. Default: 8765. */
  port?: number;
  /** Listen on a non-loopback host. Default: false. */
  allowRemote?: boolean;
  /**
   * Bearer token every request must carry (`Authorization: Bearer <token>`, the scheme in any case);
   * required with `allowRemote`, and then at least 32 characters. Default: none.
   */
  token?: string;
  /** Origins (`https://app.example.com`) whose pages may call the server. Default: none — a request with an `Origin` header gets 403. */
  allowedOrigins?: readonly string[];
  /** Host header names accepted besides loopback names and the listening host (e.g. a DNS name in front of it). Default: none. */
  allowedHosts?: readonly string[];
  /** A session with no request for this long is closed, its Python runtime freed, in ms. Default: 1800000 (30 min). */
  sessionTimeoutMs?: number;
  /** Most live sessions; one more `initialize` is refused with a JSON-RPC error. Default: 100. */
  maxSessions?: number;
}

/** A running HTTP MCP server. */
export interface McpHttpServer {
  /** E.g. `http://127.0.0.1:8765/mcp`. */
  url: string;
  /** Open sessions. */
  sessions(): number;
  close(): Promise<void>;
}

/** Answers `status` with a JSON-RPC error (`id` when the request's is known). */
function reply(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: string | number | null = null): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

const refuse = (res: ServerResponse, r: Refusal) => reply(res, r.status, -32000, r.message, r.headers);

/** Reads a request body of at most `max` bytes; `undefined` when it is longer (the rest is drained, not kept). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.once('end', () => resolve(size <= max ? Buffer.concat(chunks) : undefined));
    req.once('error', reject);
  });
}

/** Checks the options and what they allow; throws the CLI's usage-level errors. */
function checkSetup(host: string, options: McpHttpOptions): void {
  if (isLoopback(host)) return;
  if (!options.allowRemote)
    throw new ArmatureError('MCP_REMOTE_NOT_ALLOWED', `[mcp] --host ${host} is not a loopback address: anyone who can reach it could run code here. Pass --allow-remote (with a token in ARMATURE_MCP_TOKEN) to mean it, or use --host 127.0.0.1`);
  if (!options.token)
    throw new ArmatureError('MCP_TOKEN_REQUIRED', `[mcp] serving on ${host} needs a bearer token: set ARMATURE_MCP_TOKEN to a long random string (e.g. \`openssl rand -hex 32\`) and give it to your clients as "Authorization: Bearer <token>"`);
  if (options.token.length < MIN_REMOTE_TOKEN_LENGTH)
    throw new ArmatureError('MCP_TOKEN_TOO_SHORT', `[mcp] ARMATURE_MCP_TOKEN has ${options.token.length} characters; serving on ${host} needs at least ${MIN_REMOTE_TOKEN_LENGTH} (e.g. \`openssl rand -hex 32\` gives 64)`);
}

/** Starts the server; rejects with `MCP_REMOTE_NOT_ALLOWED`, `MCP_TOKEN_REQUIRED`, `MCP_TOKEN_TOO_SHORT` or `MCP_INVALID_ORIGIN` for an unsafe or wrong setup. */
export async function serveMcpHttp(sys: ArmatureSystem, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  checkSetup(host, options);
  const guard = createHttpGuard({ host, token: options.token, allowedOrigins: options.allowedOrigins, allowedHosts: options.allowedHosts });
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const table = new SessionTable({ idleMs: sessionTimeoutMs, max: maxSessions });

  /** A request of a live session. */
  const forSession = async (id: string | string[], req: IncomingMessage, res: ServerResponse) => {
    const session = typeof id === 'string' ? table.get(id) : undefined;
    if (!session) return reply(res, 404, -32001, `Session not found: ${quote(String(id))} is not a live session (it ended, expired after ${sessionTimeoutMs} ms idle, or never was); start a new one with initialize, without Mcp-Session-Id`);
    table.begin(session);
    res.once('close', () => table.end(id as string, session));
    await session.transport.handleRequest(req, res);
  };

  /** A request without a session: only a well-formed initialize, with room for it, starts one. */
  const newSession = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      if (req.method === 'GET' || req.method === 'DELETE') return reply(res, 400, -32000, `Bad Request: ${req.method} needs the Mcp-Session-Id of a live session; start one with an initialize request (POST)`);
      return reply(res, 405, -32000, `Method Not Allowed: ${quote(req.method ?? '', 20)}; /mcp takes POST, GET and DELETE`, { allow: 'GET, POST, DELETE' });
    }
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      req.resume();
      return reply(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      req.resume();
      return reply(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    const body = await readBody(req, MAX_STDIO_MESSAGE_BYTES);
    if (!body) return reply(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MAX_STDIO_MESSAGE_BYTES} bytes`);
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      return reply(res, 400, -32700, 'Parse error: Invalid JSON');
    }
    const initialize = (Array.isArray(message) ? message : [message]).find(isInitializeRequest);
    if (!initialize) return reply(res, 400, -32000, 'Bad Request: Server not initialized: a session starts with an initialize request; send the Mcp-Session-Id it answers with every other request');
    if (!table.reserve()) {
      return reply(res, 503, -32000, `Too many sessions: ${table.size} are live and the limit is ${maxSessions} (--max-sessions); end sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) or wait for idle ones to expire (--session-timeout, ${sessionTimeoutMs} ms)`, { 'retry-after': '5' }, (initialize as { id?: string | number }).id ?? null);
    }
    let mcp: Awaited<ReturnType<typeof createMcpServer>> | undefined;
    try {
      mcp = await createMcpServer(sys, options);
      const made = mcp;
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => table.add(sid, session),
      });
      const session: HttpSession = { transport, inFlight: 1, close: made.close };
      transport.onclose = () => {
        if (transport.sessionId) table.delete(transport.sessionId);
        void made.close();
      };
      await made.server.connect(transport);
      res.once('close', () => {
        if (transport.sessionId) table.end(transport.sessionId, session);
      });
      await transport.handleRequest(req, res, message);
      // The transport refused the initialize itself (e.g. two in one batch): nothing of it stays.
      if (!transport.sessionId) await made.close();
    } catch (e) {
      await mcp?.close();
      throw e;
    } finally {
      table.release();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') return reply(res, 404, -32000, `no endpoint ${quote(url.pathname)}; the MCP endpoint is /mcp`);
    const refusal = guard.check(req);
    if (refusal) return refuse(res, refusal);
    const id = req.headers['mcp-session-id'];
    return id === undefined ? newSession(req, res) : forSession(id, req, res);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) reply(res, 500, -32603, `internal error: ${(e as Error).message}`);
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
    sessions: () => table.size,
    async close() {
      await table.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
