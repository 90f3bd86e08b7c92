/**
 * The wire of a dashboard attached to a Node system (`armature start`): the page is a view of the
 * system booted in the server's process, and of every other process on its data folder.
 *
 * - `GET  /__armature/api/state`: `{ persona, mode, process, modules, statuses, tools, processes,
 *   history, lastEventId }` — what a view needs to render at once.
 * - `GET  /__armature/api/events`: Server-Sent Events, each `data` one event record (with `process`
 *   when another process's), resumed after `Last-Event-ID` (or `?after=` the state's `lastEventId`).
 * - `POST /__armature/api/call`: `{ name, args?, session?, timeoutMs?, callId? }` -> the ToolResult, called as
 *   the person at the page (caller `ui`). `stop_run` with `args.process` naming another process is
 *   relayed to it through its control folder.
 *
 * The access guard (`guard.ts`) has passed before any of these run.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { Disposable } from '../kernel/lifecycle.ts';
import { sendControl } from '../kernel/journal/control.ts';
import { watchProcesses, type ProcessesWatcher } from '../kernel/journal/processes-watcher.ts';
import type { ToolResult } from '../kernel/tool-contract.ts';
// The process:* events it emits are declared there.
import type {} from '../contracts/process-contract.ts';
import { EventFeed } from './event-feed.ts';
import { serveEventStream } from './event-stream.ts';
import { StoreFollower } from './store-follower.ts';
import { answerElicitationsOnDashboard } from '../view/dashboard-elicitation.ts';

/** Where the attached routes live. */
export const API_PREFIX = '/__armature/api/';

/** Largest call body, in bytes. */
const MAX_BODY = 4 * 1024 * 1024;

/** Options of {@link AttachedApi}. */
export interface AttachedApiOptions {
  /** Also watch the other processes on this data folder. Default: the system's platform's `dataDir`. */
  dataDir?: string;
  /** How often other processes are judged and their journals read besides the watches. Default: 500 ms. */
  pollMs?: number;
}

/** What `GET /__armature/api/state` answers. */
export interface AttachedState {
  persona: { id: string; name: string; safe: boolean };
  mode: 'attached';
  /** The server's own process on the data folder, if it keeps a journal. */
  process?: ArmatureSystem['process'];
  modules: ArmatureSystem['modules'];
  statuses: Record<string, unknown>;
  tools: ReturnType<ArmatureSystem['tools']['getToolDeclarations']>;
  processes: ReturnType<ProcessesWatcher['processes']>;
  /** The recent events, oldest first, each with its `id`. */
  history: unknown[];
  /** Resume the stream after this id (`?after=`), so nothing is missed or seen twice. */
  lastEventId: string;
}

/** The attached routes over one booted system. */
export class AttachedApi implements Disposable {
  readonly feed = new EventFeed();
  private readonly watcher: ProcessesWatcher | undefined;
  private readonly subscription: Disposable;
  /** Reads the workspace store again when another process wrote there. */
  private readonly follower: StoreFollower;
  /** The dashboard as the person's side of the system's MCP elicitation (removed with the API). */
  private readonly elicitation: Promise<Disposable | undefined>;

  constructor(
    private readonly sys: ArmatureSystem,
    options: AttachedApiOptions = {},
  ) {
    // The system's own events first: its boot is the start of the story.
    for (const r of sys.bus.history()) this.feed.push(r);
    this.subscription = sys.bus.onAny((r) => this.feed.push(r));
    const dataDir = options.dataDir ?? sys.platform.dataDir;
    const follower = (this.follower = new StoreFollower(sys));
    // A server's request for the person waits on the McpClient card, answered with answer_elicitation.
    this.elicitation = answerElicitationsOnDashboard(sys);
    this.watcher = dataDir
      ? watchProcesses({
          dataDir,
          skip: sys.process ? [sys.process.id] : [],
          pollMs: options.pollMs,
          onRecord: (r) => {
            const { process, ...rest } = r;
            this.feed.push({ ...rest, process } as never);
            follower.noticeRecord(r.type);
          },
          onStarted: (p) => this.feed.push({ type: 'process:started', payload: { process: p }, at: Date.now(), seq: 0 }),
          onEnded: (p, reason) => {
            this.feed.push({ type: 'process:ended', payload: { process: p, reason }, at: Date.now(), seq: 0 });
            follower.noticeEnded();
          },
        })
      : undefined;
  }

  /** Answers `req` when it is one of the attached routes; false when it is not. */
  async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
    if (!pathname.startsWith(API_PREFIX)) return false;
    const route = pathname.slice(API_PREFIX.length);
    res.setHeader('Cache-Control', 'no-store');
    if (route === 'state' && req.method === 'GET') {
      const state = this.state();
      json(res, 200, new URL(req.url ?? '/', 'http://x').searchParams.get('history') === '0' ? { ...state, history: undefined } : state);
    } else if (route === 'events' && req.method === 'GET') {
      serveEventStream(req, res, this.feed);
    } else if (route === 'call' && req.method === 'POST') {
      await this.call(req, res);
    } else {
      json(res, 404, { error: `no route ${req.method} ${pathname}: the attached API has GET state, GET events and POST call` });
    }
    return true;
  }

  /** Everything a view needs at once. */
  state(): AttachedState {
    const sys = this.sys;
    const status = (sys as { status?(id: string): unknown }).status;
    const statuses: Record<string, unknown> = {};
    if (status) {
      for (const m of sys.modules) {
        const s = status.call(sys, m.id);
        if (s !== undefined) statuses[m.id] = s;
      }
    }
    return {
      persona: { id: sys.persona.id, name: sys.persona.name, safe: sys.safe },
      mode: 'attached',
      ...(sys.process ? { process: sys.process } : {}),
      modules: sys.modules,
      statuses,
      // What the person at the page may call: person-only tools included, as localView's.
      tools: sys.tools.getToolDeclarations({ audience: 'person' }),
      processes: this.watcher?.processes() ?? [],
      history: this.feed.recent().map((i) => ({ ...i.record, id: i.id })),
      lastEventId: this.feed.lastId,
    };
  }

  /** The other processes seen on the data folder. */
  processes(): ReturnType<ProcessesWatcher['processes']> {
    return this.watcher?.processes() ?? [];
  }

  dispose(): void {
    this.subscription.dispose();
    this.watcher?.dispose();
    this.follower.dispose();
    void this.elicitation.then((d) => d?.dispose());
  }

  private async call(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A form post from another page cannot send JSON without a preflight, which this server never grants.
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return json(res, 415, failure('BAD_REQUEST', `a call is a JSON body (Content-Type: application/json), got ${JSON.stringify(req.headers['content-type'] ?? '')}`));
    }
    let body: { name?: unknown; args?: unknown; session?: unknown; timeoutMs?: unknown; callId?: unknown };
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      return json(res, 400, failure('BAD_REQUEST', `the call is not valid JSON: ${(e as Error).message}`));
    }
    const { name, args = {}, session, timeoutMs, callId } = body ?? {};
    if (typeof name !== 'string' || !name) return json(res, 400, failure('BAD_REQUEST', `a call needs "name", the tool to call, got ${JSON.stringify(name)}`));
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return json(res, 400, failure('BAD_REQUEST', `"args" must be an object, got ${JSON.stringify(args)}`));
    const target = (args as { process?: unknown }).process;
    if (name === 'stop_run' && typeof target === 'string' && target !== this.sys.process?.id) {
      return json(res, 200, await this.relay(target, args as Record<string, unknown>));
    }
    const own = name === 'stop_run' ? withoutProcess(args as Record<string, unknown>) : args;
    const result = await this.sys.tools.executeTool(name, own, {
      caller: 'ui',
      ...(typeof session === 'string' && session ? { session } : {}),
      ...(typeof timeoutMs === 'number' ? { timeoutMs } : {}),
      // The page names the call when it follows its own output (a console's execute_python run).
      ...(typeof callId === 'string' && callId ? { callId } : {}),
    });
    json(res, 200, result);
  }

  /** `stop_run` in another process, through its control folder. */
  private async relay(process: string, args: Record<string, unknown>): Promise<ToolResult> {
    const folder = this.watcher?.folderOf(process);
    const known = this.watcher?.processes().find((p) => p.id === process);
    if (!folder || !known) return failure('UNKNOWN_PROCESS', `[stop_run] no process ${JSON.stringify(process)} on this data folder`, 'The Processes card lists them.');
    if (known.endedAt !== undefined) return failure('PROCESS_ENDED', `[stop_run] process ${process} (${known.command}) has ended: its runs ended with it`);
    return sendControl(folder, 'stop_run', withoutProcess(args));
  }
}

function withoutProcess(args: Record<string, unknown>): Record<string, unknown> {
  const { process: _process, ...rest } = args;
  return rest;
}

function failure(code: string, message: string, hint?: string): ToolResult {
  return { ok: false, error: { code, message }, ...(hint ? { hint } : {}), durationMs: 0 };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(value));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error(`the body passes ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
