/**
 * `remoteView`: a {@link SystemView} of a Node system behind the dashboard server (`armature
 * start`), over the wire of `src/server/attached-api.ts`: the state once, then the event stream
 * (Server-Sent Events read with fetch, so it works in the page and in Node alike, resumed after the
 * last id it saw whenever the connection drops), and tool calls as the person at the page. No DOM,
 * no Node imports.
 */
import { createParser } from 'eventsource-parser';
import type { AnyEventRecord } from '../kernel/event-bus.ts';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import type { ToolDeclaration } from '../kernel/manifest-schemas.ts';
import type { ToolResult } from '../kernel/tool-contract.ts';
import type { ProcessInfo } from '../contracts/process-contract.ts';
import { RemoteEvents } from './remote-events.ts';
import type { PageEventType, SystemView, ViewCallOptions } from './system-view.ts';
import type { ArmatureEvents } from '../kernel/events.ts';

/** Options of {@link remoteView}. */
export interface RemoteViewOptions {
  /** The dashboard server, e.g. `http://127.0.0.1:8080/` (the page: its own origin). */
  baseUrl: string;
  /** The access token, sent as a bearer token (programs). Default: none (a page has its cookie). */
  token?: string;
  /** Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Events kept for late subscribers. Default: 2000. */
  historySize?: number;
}

/** A remote view, with what only a remote one has. */
export interface RemoteSystemView extends SystemView {
  readonly mode: 'attached';
  /** The server's own process on the data folder, if it keeps a journal. */
  readonly process?: ProcessInfo;
  /** Whether the event stream is connected now. */
  readonly connected: boolean;
  /** Ends the event stream; calls still work. */
  close(): void;
}

/** What the state route answers (see `AttachedState` in `src/server/attached-api.ts`). */
interface WireState {
  persona: { id: string; name: string; safe: boolean };
  process?: ProcessInfo;
  modules: ModuleReport[];
  statuses: Record<string, unknown>;
  tools: ToolDeclaration[];
  processes: ProcessInfo[];
  history?: AnyEventRecord[];
  lastEventId: string;
}

/** Connects to the server at `options.baseUrl`; rejects when its state cannot be read (naming why). */
export async function remoteView(options: RemoteViewOptions): Promise<RemoteSystemView> {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const api = (route: string) => new URL(`/__armature/api/${route}`, options.baseUrl).href;
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
  const readState = async (history: boolean): Promise<WireState> => {
    const res = await fetchImpl(api(history ? 'state' : 'state?history=0'), { headers: auth, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`[remoteView] ${options.baseUrl} answered ${res.status} to the state: ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as WireState;
  };
  const first = await readState(true);
  const events = new RemoteEvents(options.historySize ?? 2000);
  for (const r of first.history ?? []) events.keep(r);
  let modules = first.modules;
  let tools = first.tools;
  const statuses = new Map(Object.entries(first.statuses));
  // The server's own process is one of the data folder's: listed, and named where its runs show.
  const processes = new Map([...(first.process ? [first.process] : []), ...first.processes].map((p) => [p.id, p]));
  let lastId = first.lastEventId;
  let connected = false;
  let closed = false;
  const controller = new AbortController();

  // module:* and tool:* events of the attached system change its reports and tools: read them anew, once per burst.
  let refreshing: Promise<void> | undefined;
  const refresh = (): Promise<void> =>
    (refreshing ??= new Promise((wait) => setTimeout(wait, 50))
      .then(() => {
        // Events from here on need a read of their own: this one may have missed them.
        refreshing = undefined;
        return readState(false);
      })
      .then(
        (s) => {
          modules = s.modules;
          tools = s.tools;
          for (const [id, st] of Object.entries(s.statuses)) statuses.set(id, st);
        },
        () => undefined,
      ));
  /** Follows a record; answers a promise when what it changed must be read before it is delivered. */
  const apply = (r: AnyEventRecord): Promise<void> | undefined => {
    if (r.type === 'process:started' || r.type === 'process:ended') {
      const p = (r.payload as { process: ProcessInfo }).process;
      processes.set(p.id, p);
    } else if (r.process === undefined) {
      if (r.type === 'module:status') {
        const { id, status } = r.payload as { id: string; status: unknown };
        statuses.set(id, status);
      } else if (r.type.startsWith('module:') || r.type === 'tool:registered' || r.type === 'tool:unregistered') return refresh();
    }
    return undefined;
  };
  // A listener of module:loaded looks the module up in modules(): such a record is delivered once
  // the new reports are read, and the records after it wait their turn, so the order holds.
  let queue = Promise.resolve();
  let queued = 0;
  const deliver = (record: AnyEventRecord, after: Promise<void> | undefined) => {
    if (after === undefined && queued === 0) return events.deliver(record);
    queued++;
    queue = queue
      .then(() => after)
      .then(() => {
        queued--;
        events.deliver(record);
      })
      // The chain must outlive a failure, or every record after it would wait forever.
      .catch(() => undefined);
  };

  const stream = async () => {
    let delay = 250;
    while (!closed) {
      try {
        const res = await fetchImpl(api('events'), {
          headers: { ...auth, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          credentials: 'same-origin',
          signal: controller.signal,
        });
        if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
        connected = true;
        delay = 250;
        const parser = createParser({
          onEvent: (e) => {
            if (e.event === 'reset') {
              // Another server, or one that forgot what we saw: it replays all it has.
              events.clear();
              void refresh();
              return;
            }
            if (e.id) lastId = e.id;
            const record = JSON.parse(e.data) as AnyEventRecord;
            deliver(record, apply(record));
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        // Dropped, refused or closed: try again below, unless closed.
      }
      connected = false;
      if (closed) break;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  };
  void stream();

  return {
    mode: 'attached',
    persona: first.persona,
    ...(first.process ? { process: first.process } : {}),
    events,
    get connected() {
      return connected;
    },
    modules: () => modules,
    status: <T>(id: string) => statuses.get(id) as T | undefined,
    tools: () => tools,
    processes: () => [...processes.values()].sort((a, b) => a.startedAt - b.startedAt),
    emitLocal<K extends PageEventType>(type: K, payload: ArmatureEvents[K]) {
      // About the page itself: its own listeners hear it, the server never does.
      events.deliver({ type, payload, at: Date.now(), seq: 0 } as AnyEventRecord);
    },
    async callTool<T>(name: string, args: Record<string, unknown> = {}, o: ViewCallOptions = {}): Promise<ToolResult<T>> {
      const t0 = performance.now();
      try {
        const res = await fetchImpl(api('call'), {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name, args, ...(o.session ? { session: o.session } : {}), ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}), ...(o.callId ? { callId: o.callId } : {}) }),
          credentials: 'same-origin',
          ...(o.signal ? { signal: o.signal } : {}),
        });
        const body = (await res.json().catch(() => undefined)) as ToolResult<T> | undefined;
        if (body && typeof body.ok === 'boolean') return body;
        return { ok: false, error: { code: 'SERVER_ERROR', message: `[callTool] ${name}: the dashboard server answered ${res.status} without a result` }, durationMs: performance.now() - t0 };
      } catch (e) {
        if (o.signal?.aborted) return { ok: false, error: { code: 'CANCELLED', message: `[callTool] ${name} was cancelled` }, durationMs: performance.now() - t0 };
        return {
          ok: false,
          error: { code: 'SERVER_UNREACHABLE', message: `[callTool] ${name}: the dashboard server at ${options.baseUrl} did not answer (${(e as Error).message})` },
          hint: 'Is armature start still running? Start it again and reload the page.',
          durationMs: performance.now() - t0,
        };
      }
    },
    close() {
      closed = true;
      controller.abort();
    },
  };
}
