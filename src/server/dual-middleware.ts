/**
 * One middleware for every Node server: connect-style `(req, res, next)` — Express, Vite's dev and
 * preview servers, connect, and a plain `node:http` server (`createServer((req, res) =>
 * mw(req, res, notFound))`) — and Koa-style `(ctx, next)`, which @web/dev-server and
 * @web/test-runner use. Each is written once, as a {@link Handler} over Node's own request and
 * response, and told apart by how it is called.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Handles a request, or lets it pass: resolves to true when it sent the response, false when the
 * next middleware should (it may have set headers on the way).
 */
export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** The part of a Koa context these middlewares use (Koa exposes Node's request and response). */
export interface KoaLikeContext {
  req: IncomingMessage;
  res: ServerResponse;
  /** Koa: false when the middleware answered on `res` itself. */
  respond?: boolean;
}

/** A middleware for connect-style and Koa-style servers alike. */
export interface DualMiddleware {
  (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void;
  (ctx: KoaLikeContext, next: () => Promise<unknown>): Promise<unknown>;
}

/** `handler` as a middleware of either style. */
export function dual(handler: Handler): DualMiddleware {
  return function middleware(a: IncomingMessage | KoaLikeContext, b: ServerResponse | (() => Promise<unknown>), c?: (error?: unknown) => void): Promise<unknown> | undefined {
    if (typeof c === 'function') {
      handler(a as IncomingMessage, b as ServerResponse).then((handled) => handled || c(), c);
      return undefined;
    }
    const ctx = a as KoaLikeContext;
    return handler(ctx.req, ctx.res).then((handled) => {
      if (!handled) return (b as () => Promise<unknown>)();
      ctx.respond = false;
      return undefined;
    });
  } as DualMiddleware;
}

/** Several handlers in order, as one: the first that answers ends it. */
export function chain(handlers: readonly Handler[]): Handler {
  return async (req, res) => {
    for (const h of handlers) if (await h(req, res)) return true;
    return false;
  };
}

/** The request's path, without its query. */
export function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname;
}

/** Sends `body` with `type`, uncached, unless the request is a HEAD. */
export function send(req: IncomingMessage, res: ServerResponse, type: string, body: string | Uint8Array, headers: Readonly<Record<string, string>> = {}): true {
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
