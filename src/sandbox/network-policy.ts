/**
 * The network policy of agent code: `none`, or a list of origins its one `fetch` may reach. The
 * policy is enforced by the host, which performs every request on the worker's behalf (the worker
 * itself has no network: no fetch in Node's confined child, a `connect-src 'none'` CSP in browsers).
 */
import { quote } from '../kernel/bounded.ts';
import { SandboxError } from './errors.ts';
import type { Fetched, FetchRequest, NetworkPolicy } from './protocol.ts';

/** HTTP methods the policy fetch accepts. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Most redirects followed (each hop is checked against the policy). */
const MAX_REDIRECTS = 5;

/**
 * Checks and normalizes a policy: `'none'` (the default for `undefined`), or origins such as
 * `https://api.example.com` (http or https, no path). Throws `INVALID_OPTIONS` naming the bad entry.
 */
export function normalizeNetworkPolicy(policy: unknown, owner: string): NetworkPolicy {
  if (policy === undefined || policy === 'none') return 'none';
  if (!Array.isArray(policy)) {
    throw new SandboxError('INVALID_OPTIONS', `[sandbox] ${owner}: network must be "none" or a list of origins, got ${quote(policy)}`, {
      hint: 'Use "none", or e.g. ["https://api.example.com"].',
    });
  }
  return [
    ...new Set(
      policy.map((entry) => {
        let url: URL | undefined;
        try {
          url = typeof entry === 'string' && entry.length <= 2048 ? new URL(entry) : undefined;
        } catch {
          url = undefined;
        }
        const bad = (why: string) =>
          new SandboxError('INVALID_OPTIONS', `[sandbox] ${owner}: network entry ${quote(entry)} ${why}`, {
            hint: 'Give origins only: a scheme, a host and an optional port, e.g. "https://api.example.com".',
          });
        if (!url) throw bad('is not a URL');
        if (url.protocol !== 'https:' && url.protocol !== 'http:') throw bad('is not an http(s) origin');
        if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) throw bad('has more than an origin');
        return url.origin;
      }),
    ),
  ];
}

/** Whether `policy` lets a request reach `url`. */
export function networkAllows(policy: NetworkPolicy, url: string): boolean {
  if (policy === 'none') return false;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return false;
  }
  return policy.includes(origin);
}

/** Options of {@link policyFetch}. */
export interface PolicyFetchOptions {
  /** Largest response body, in bytes; a longer one fails with `MESSAGE_TOO_LARGE`. */
  maxBytes: number;
  /** Most time for the whole request, in ms. */
  timeoutMs: number;
  /** Whose request this is, for errors. */
  owner: string;
  /** The fetch to use. Default: the global one. */
  fetch?: typeof fetch;
}

/** The error a request outside the policy gets, in the worker and on the host alike. */
export function networkDenied(owner: string, policy: NetworkPolicy, url: string): SandboxError {
  const allowed = policy === 'none' ? 'no origin' : policy.join(', ');
  return new SandboxError('NETWORK_DENIED', `[fetch] ${owner} may not reach ${quote(url, 200)}: its network policy allows ${allowed}`, {
    hint: policy === 'none' ? 'This code has no network access.' : `Only these origins can be fetched: ${allowed}.`,
    details: { url: url.slice(0, 2048) },
  });
}

/**
 * Performs `req` for agent code when `policy` allows it: credentials are never sent, every redirect
 * hop is checked against the policy, the body is read up to `maxBytes`. Throws {@link SandboxError}
 * (`NETWORK_DENIED`, `MESSAGE_TOO_LARGE`, `SANDBOX_TIMEOUT`) or the network error.
 */
export async function policyFetch(policy: NetworkPolicy, req: FetchRequest, options: PolicyFetchOptions): Promise<Fetched> {
  const doFetch = options.fetch ?? fetch;
  const method = req.method.toUpperCase();
  if (!METHODS.has(method)) {
    throw new SandboxError('INVALID_OPTIONS', `[fetch] method ${quote(req.method)} is not supported`, { hint: `Use one of ${[...METHODS].join(', ')}.` });
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    let url = req.url;
    let body: string | Uint8Array | undefined = req.body;
    let currentMethod = method;
    for (let hop = 0; ; hop++) {
      if (!networkAllows(policy, url)) throw networkDenied(options.owner, policy, url);
      let res: Response;
      try {
        res = await doFetch(url, {
          method: currentMethod,
          headers: req.headers,
          body: body as BodyInit | undefined,
          credentials: 'omit',
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (e) {
        if (controller.signal.aborted) {
          throw new SandboxError('SANDBOX_TIMEOUT', `[fetch] ${quote(url, 200)} did not answer within ${options.timeoutMs} ms`, { hint: 'Retry later, or ask for less data.' });
        }
        throw new SandboxError('NETWORK_DENIED', `[fetch] ${quote(url, 200)} failed: ${(e as Error).message}`, { hint: 'Check that the server is reachable.' });
      }
      if (res.type === 'opaqueredirect') {
        throw new SandboxError('NETWORK_DENIED', `[fetch] ${quote(url, 200)} redirected, and a browser does not reveal where to: redirects are not followed`, {
          hint: 'Fetch the final URL directly.',
        });
      }
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (location !== null) {
        await res.body?.cancel();
        if (hop >= MAX_REDIRECTS) throw new SandboxError('NETWORK_DENIED', `[fetch] more than ${MAX_REDIRECTS} redirects from ${quote(req.url, 200)}`);
        url = new URL(location, url).href;
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && currentMethod === 'POST')) {
          currentMethod = 'GET';
          body = undefined;
        }
        continue;
      }
      return {
        status: res.status,
        statusText: res.statusText.slice(0, 1024),
        url,
        headers: [...res.headers.entries()],
        body: await readCapped(res, options.maxBytes, url),
      };
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The body of `res`, refusing (and cancelling the download) past `maxBytes`. */
async function readCapped(res: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  const tooLarge = (size: string) =>
    new SandboxError('MESSAGE_TOO_LARGE', `[fetch] the response of ${quote(url, 200)} is ${size} bytes; the limit is ${maxBytes}`, {
      hint: 'Ask for less data (a range, a page, a filter), or raise limits.maxMessageBytes.',
    });
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw tooLarge(String(declared));
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(`more than ${maxBytes}`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
