/**
 * What keeps the dashboard server safe to leave open: who may ask it anything, and what every
 * answer carries. A page on another site (or another port of 127.0.0.1, which browsers count as
 * the same site) can make a browser send requests to loopback, frame the page or rebind a DNS name
 * to 127.0.0.1; so
 *
 * - the `Host` header must name this server by a loopback name (or a name it was told to answer);
 * - a request that says where it comes from (`Origin`, `Sec-Fetch-Site`) must come from this origin,
 *   except a person's own navigation to the page;
 * - every route needs the access token printed at start: from the URL once (`/?token=...`, which
 *   sets an HttpOnly, SameSite=Strict cookie and redirects to `/`), then from the cookie, or as
 *   `Authorization: Bearer <token>` for programs;
 * - every answer denies framing (`frame-ancestors 'none'`, `X-Frame-Options: DENY`) and sends no
 *   `Referer` (the first URL carries the token).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A fresh access token: 32 random bytes, base64url. */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `host` (a hostname, without port) is a loopback address or name. */
export function isLoopbackName(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The headers every answer carries, whatever the route. */
export const FRAMING_HEADERS: Readonly<Record<string, string>> = {
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

/** Options of {@link AccessGuard}. */
export interface GuardOptions {
  /** The access token. */
  token: string;
  /**
   * Host names (no port) this server answers besides the loopback ones; `'*'` answers any (a
   * server bound to every interface on purpose, `--allow-remote`). Default: none.
   */
  allowedHosts?: readonly string[];
}

/** Why a request was refused: the status and a sentence saying what to do. */
export interface Refusal {
  status: number;
  message: string;
}

/** The request's hostname from its `Host` header (without the port), lower case; '' when absent. */
function hostnameOf(req: IncomingMessage): string {
  const host = (req.headers.host ?? '').toLowerCase();
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Reads one cookie from a `Cookie` header. */
function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Decides, for each request, whether it may be answered. */
export class AccessGuard {
  /** The access token. */
  readonly token: string;
  private readonly hosts: ReadonlySet<string>;

  constructor(options: GuardOptions) {
    if (options.token.length < 16) throw new Error(`[serve] the access token must be at least 16 characters, got ${options.token.length}: leave it out to get a random one`);
    this.token = options.token;
    this.hosts = new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase()));
  }

  /**
   * The cookie's name. Browsers do not tell cookies apart by port, so two servers on one machine
   * (two data folders) each keep their own.
   */
  cookieName(port: number): string {
    return `armature_token_${port}`;
  }

  /** Sets the headers every answer carries. */
  protect(res: ServerResponse): void {
    for (const [k, v] of Object.entries(FRAMING_HEADERS)) res.setHeader(k, v);
  }

  /** Refuses a request whose `Host` is not this server's (DNS rebinding), else undefined. */
  checkHost(req: IncomingMessage): Refusal | undefined {
    const name = hostnameOf(req);
    if (isLoopbackName(name) || this.hosts.has(name) || this.hosts.has('*')) return undefined;
    return { status: 421, message: `Host ${JSON.stringify(req.headers.host ?? '')} is not allowed: this server answers loopback names only (open it as http://127.0.0.1:PORT/, or start it with --host NAME)` };
  }

  /**
   * Refuses a request that comes from another origin: an `Origin` header other than this server's,
   * or `Sec-Fetch-Site` other than `same-origin` (`none`, a person typing the URL, is fine for a
   * navigation to the page). Requests that say neither (programs, older browsers) rely on the token.
   */
  checkOrigin(req: IncomingMessage, navigation: boolean): Refusal | undefined {
    const dest = req.headers['sec-fetch-dest'];
    if (typeof dest === 'string' && ['iframe', 'frame', 'embed', 'object', 'fencedframe'].includes(dest)) {
      return { status: 403, message: `the dashboard is not shown inside another page (Sec-Fetch-Dest: ${dest}): open it in a tab of its own` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}` && origin !== `https://${req.headers.host ?? ''}`) {
      return { status: 403, message: `Origin ${JSON.stringify(origin)} is not allowed: only the dashboard's own page may call this server` };
    }
    const site = req.headers['sec-fetch-site'];
    if (typeof site === 'string' && site !== 'same-origin' && !(navigation && (site === 'none' || req.headers['sec-fetch-mode'] === 'navigate'))) {
      return { status: 403, message: `a request from another site (Sec-Fetch-Site: ${site}) is not allowed: only the dashboard's own page may call this server` };
    }
    return undefined;
  }

  /** Whether the request carries the token, in the cookie for `port` or as a bearer token. */
  authorized(req: IncomingMessage, port: number): boolean {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const given = bearer ?? cookie(req.headers.cookie, this.cookieName(port));
    return given !== undefined && sameToken(given, this.token);
  }

  /** Whether `given` (from the URL) is the token. */
  matches(given: string): boolean {
    return sameToken(given, this.token);
  }

  /** The `Set-Cookie` value that keeps the token for `port`. */
  setCookie(port: number): string {
    return `${this.cookieName(port)}=${encodeURIComponent(this.token)}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

/** Ends `res` with `refusal` as plain text (no page: nothing to frame, nothing to run). */
export function refuse(res: ServerResponse, refusal: Refusal, headers: Record<string, string> = {}): void {
  res.writeHead(refusal.status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers });
  res.end(`${refusal.message}\n`);
}
