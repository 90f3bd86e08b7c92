/**
 * Who may talk to `armature mcp --http`, checked before anything is read or built for a request:
 * the `Host` header (against DNS rebinding: a page on another site that rebinds its name to this
 * machine still sends its own name), the `Origin` header (the spec's MUST: a page's request, from
 * another site or another port of this machine, is refused with 403 unless its origin is allowed)
 * and the bearer token. With `--allow-remote` the same checks hold against what is configured.
 */
import { timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { IncomingMessage } from 'node:http';
import { quote } from '../kernel/bounded.ts';
import { ArmatureError } from '../kernel/errors.ts';

/** Shortest token accepted when the server listens beyond loopback. */
export const MIN_REMOTE_TOKEN_LENGTH = 32;

/** Names a loopback server answers to (Host headers are compared lower-cased, without the port). */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Whether `host` is a loopback address or name. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Whether `host` means every interface. */
const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]';

/** `host` as a Host header names it: lower-case, IPv6 in brackets. */
const hostName = (host: string) => {
  const h = host.toLowerCase();
  return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
};

/**
 * An origin as browsers send it: `scheme://host[:port]`, lower-case, without a default port.
 * Throws `MCP_INVALID_ORIGIN` for anything else (a path, a wildcard).
 */
export function normalizeOrigin(origin: string): string {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    throw new ArmatureError('MCP_INVALID_ORIGIN', `[mcp] ${quote(origin)} is not an origin: give scheme, host and optional port, e.g. https://app.example.com or http://localhost:5173`);
  }
  if (!/^https?:$/.test(u.protocol) || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || origin.endsWith('/')) {
    throw new ArmatureError('MCP_INVALID_ORIGIN', `[mcp] ${quote(origin)} is not an origin: give scheme, host and optional port only (no path, query or trailing slash), e.g. https://app.example.com`);
  }
  return u.origin;
}

/** Options of {@link createHttpGuard}. */
export interface HttpGuardOptions {
  /** The interface the server listens on. */
  host: string;
  /** Bearer token requests must carry. Default: none. */
  token?: string;
  /** Origins whose pages may call the server. Default: none (a request with an Origin header is refused). */
  allowedOrigins?: readonly string[];
  /**
   * Host header names accepted besides the loopback names. Default: none, plus the listening host
   * itself (or, for 0.0.0.0 / ::, this machine's interface addresses).
   */
  allowedHosts?: readonly string[];
}

/** A refusal: the HTTP status, a message for the JSON-RPC error, and headers to add. */
export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** The checks for one server; `check(req)` answers a refusal or `undefined` when the request may go on. */
export function createHttpGuard(o: HttpGuardOptions): { check(req: IncomingMessage): Refusal | undefined; hosts: ReadonlySet<string>; origins: ReadonlySet<string> } {
  const hosts = new Set(LOOPBACK_NAMES);
  if (!isLoopback(o.host)) {
    if (isWildcard(o.host)) {
      for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) hosts.add(hostName(a.address));
    } else {
      hosts.add(hostName(o.host));
    }
  }
  for (const h of o.allowedHosts ?? []) hosts.add(hostName(h));
  const origins = new Set((o.allowedOrigins ?? []).map(normalizeOrigin));
  const expected = o.token === undefined ? undefined : Buffer.from(o.token);
  return {
    hosts,
    origins,
    check(req) {
      const host = req.headers.host ?? '';
      // The port is not part of the check: the same name on another port is the same machine.
      const name = host.toLowerCase().replace(/:\d+$/, '');
      if (!hosts.has(name)) {
        return { status: 403, message: `Forbidden: Host ${quote(host)} is not allowed (allowed: ${[...hosts].join(', ')}); serve with --allow-host ${quote(name)} if clients reach this server by that name` };
      }
      const origin = req.headers.origin;
      if (origin !== undefined && !origins.has(origin.toLowerCase())) {
        return {
          status: 403,
          message: `Forbidden: Origin ${quote(origin)} is not allowed${origins.size ? ` (allowed: ${[...origins].join(', ')})` : ': no web origin is, so pages cannot call this server'}; serve with --allow-origin ORIGIN to let that page in`,
        };
      }
      if (expected) {
        const given = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
        const bytes = given === undefined ? undefined : Buffer.from(given);
        if (!bytes || bytes.length !== expected.length || !timingSafeEqual(bytes, expected)) {
          return { status: 401, message: 'Unauthorized: missing or wrong bearer token (send "Authorization: Bearer <token>")', headers: { 'www-authenticate': 'Bearer realm="armature"' } };
        }
      }
      return undefined;
    },
  };
}
