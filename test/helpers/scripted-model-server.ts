// A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions wire protocol with SSE
// streaming, playing a scripted model (model-script.ts): each POST /v1/chat/completions answers
// with the next turn (text deltas, tool calls, usage) or a scripted failure (401, 429 + headers),
// and every request is recorded. It sends CORS headers, like llama.cpp's server, so a page on
// another origin can use it. Usable three ways:
//   - Node tests and the CLI test: `await startScriptedModelServer(script)` -> { baseURL, requests, close }
//   - browser suites: `scriptedModelMiddleware()` in web-test-runner.config.mjs serves sessions under
//     /__armature/scripted-model/<session>/v1; the page POSTs its script to .../script and reads
//     what the model received from .../requests (`browserScriptedModel` in scripted-model-browser.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCRIPTED_MODEL_ROUTE, type RecordedRequest } from './scripted-model-browser.ts';
import { argsText, isFailure, textPieces, type ScriptedAnswer, type ScriptedRequest, type ScriptTurn } from './model-script.ts';

export type { ScriptTurn, ScriptedRequest } from './model-script.ts';
export type { RecordedRequest } from './scripted-model-browser.ts';


/** A scripted model: plays its turns in order and records what it was sent. */
export class ScriptedModel {
  readonly requests: RecordedRequest[] = [];
  private turn = 0;

  constructor(private script: ScriptTurn[] = []) {}

  /** Replaces the script and starts it from its first turn (the record is kept). */
  setScript(script: ScriptTurn[]): void {
    this.script = script;
    this.turn = 0;
  }

  /** Answers one request at `path` (`/v1/chat/completions`, `/v1/models`). */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'authorization, content-type, x-api-key, anthropic-version');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
    // The dashboard is cross-origin isolated (COEP require-corp): a cross-origin answer must say it may be embedded.
    res.setHeader('cross-origin-resource-policy', 'cross-origin');
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.statusCode = 404;
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as ScriptedRequest;
    this.requests.push({ path, headers: flatHeaders(req), body });
    const index = this.turn++;
    let t = this.script[index] ?? { text: '(the script is over)' };
    if (typeof t === 'function') t = t(body);
    if (isFailure(t)) {
      res.statusCode = t.status;
      res.setHeader('content-type', 'application/json');
      for (const [k, v] of Object.entries(t.headers ?? {})) res.setHeader(k, v);
      res.end(JSON.stringify(t.body ?? { error: { message: `scripted ${t.status}`, type: 'scripted', code: t.status } }));
      return;
    }
    streamAnswer(res, t, index, String(body.model ?? 'scripted'));
  }
}

/** Writes one answer as the SSE stream an OpenAI-compatible server sends. */
function streamAnswer(res: ServerResponse, a: ScriptedAnswer, index: number, model: string): void {
  res.statusCode = 200;
  res.setHeader('content-type', 'text/event-stream');
  res.setHeader('cache-control', 'no-cache');
  const id = `chatcmpl-scripted-${index}`;
  const created = Math.floor(Date.now() / 1000);
  const send = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`);
  send({ role: 'assistant', content: '' });
  for (const piece of textPieces(a.text)) send({ content: piece });
  (a.toolCalls ?? []).forEach((c, i) => {
    const callId = c.id ?? `call_${index}_${i}`;
    const args = argsText(c.args);
    // Arguments arrive in two pieces, as real servers split them.
    const cut = Math.floor(args.length / 2);
    send({ tool_calls: [{ index: i, id: callId, type: 'function', function: { name: c.name, arguments: args.slice(0, cut) } }] });
    send({ tool_calls: [{ index: i, function: { arguments: args.slice(cut) } }] });
  });
  const finish = a.finishReason ?? (a.toolCalls?.length ? 'tool_calls' : 'stop');
  res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
  const usage = a.usage ?? { input: 100, output: 10 };
  res.write(
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** The base URL to configure, e.g. `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  model: ScriptedModel;
  /** The recorded requests (bodies and headers), in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a scripted model on a free port of 127.0.0.1. */
export async function startScriptedModelServer(script: ScriptTurn[] = []): Promise<ScriptedModelServer> {
  const model = new ScriptedModel(script);
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    model.handle(req, res, path).catch((e: Error) => {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: { message: `scripted model server: ${e.message}` } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    model,
    requests: model.requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port on 127.0.0.1 nothing listens on (bound, then released): connecting to it is refused. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

interface KoaLikeContext {
  path: string;
  method: string;
  req: IncomingMessage;
  res: ServerResponse;
  respond?: boolean;
  body: unknown;
  type: string;
  status: number;
}

export { SCRIPTED_MODEL_ROUTE };

/**
 * Koa middleware for web-test-runner: `<route><session>/v1/...` is a scripted model per session;
 * `POST <route><session>/script` (a JSON array of answer/failure turns) sets its script and
 * `GET <route><session>/requests` returns what it received; `GET <route>unused-port` names a
 * port of 127.0.0.1 that refuses connections.
 */
export function scriptedModelMiddleware() {
  const sessions = new Map<string, ScriptedModel>();
  return async (ctx: KoaLikeContext, next: () => Promise<unknown>) => {
    if (!ctx.path.startsWith(SCRIPTED_MODEL_ROUTE)) return next();
    const [session, ...rest] = ctx.path.slice(SCRIPTED_MODEL_ROUTE.length).split('/');
    const sub = `/${rest.join('/')}`;
    if (!session) {
      ctx.status = 404;
      return;
    }
    if (session === 'unused-port') {
      ctx.type = 'application/json';
      ctx.body = { port: await unusedPort() };
      return;
    }
    if (!sessions.has(session)) sessions.set(session, new ScriptedModel());
    const model = sessions.get(session)!;
    if (sub === '/script' && ctx.method === 'POST') {
      model.setScript(JSON.parse(await readBody(ctx.req)) as ScriptTurn[]);
      ctx.type = 'application/json';
      ctx.body = { ok: true };
      return;
    }
    if (sub === '/requests') {
      ctx.type = 'application/json';
      ctx.body = model.requests;
      return;
    }
    ctx.respond = false;
    await model.handle(ctx.req, ctx.res, sub);
  };
}
