/**
 * What the McpClient offers the servers it talks to, per the persona's `mcp` (each off when
 * absent): roots (the workspace folder), sampling (the persona's model, counted and bounded:
 * `sampling.ts`), elicitation (the person, through a responder: `elicitation.ts`); and what it
 * takes from them besides answers: log messages onto the bus (`mcp-client:log`).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientCapabilities, Root } from '@modelcontextprotocol/sdk/types.js';
import { clip } from '../../src/kernel/bounded.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import { peerMissing } from '../../src/kernel/optional-peer.ts';
import type { ElicitationDesk } from './elicitation.ts';
import { RequestRefused } from './refusal.ts';
import type { SamplingGate } from './sampling.ts';

/** Most characters of a server's log message on the bus. */
const MAX_LOG_CHARS = 4000;

/**
 * Servers waiting on this client (for the person, or the model): a call to such a server is not
 * idle, whatever its clock says.
 */
export class ServerWaits {
  private readonly counts = new Map<string, number>();
  /** The running clocks of calls, by server: started again when a wait of that server ends. */
  private readonly clocks = new Map<string, Set<() => void>>();

  /** Whether `server` is waiting on this client now. */
  waiting(server: string): boolean {
    return (this.counts.get(server) ?? 0) > 0;
  }

  /**
   * A call's idle clock: its signal aborts after `ms` of silence — started again by `refresh()`
   * (progress), and not running out while `server` waits on this client (a 75 s operation that
   * reports progress, or a person taking a minute to answer, is not idle).
   */
  clock(server: string, ms: number): { signal: AbortSignal; refresh(): void; stop(): void } {
    const idle = new AbortController();
    // A new timer each time, not Node's Timeout.refresh(): in a browser a timer is a plain number.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const refresh = () => {
      if (stopped) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (this.waiting(server)) refresh();
        else idle.abort();
      }, ms);
    };
    refresh();
    let clocks = this.clocks.get(server);
    if (!clocks) this.clocks.set(server, (clocks = new Set()));
    clocks.add(refresh);
    return {
      signal: idle.signal,
      refresh,
      stop: () => {
        stopped = true;
        clearTimeout(timer);
        clocks.delete(refresh);
      },
    };
  }

  /** Runs `work` while `server` counts as waiting on this client. */
  async during<T>(server: string, work: () => Promise<T>): Promise<T> {
    this.counts.set(server, (this.counts.get(server) ?? 0) + 1);
    try {
      return await work();
    } finally {
      this.counts.set(server, this.counts.get(server)! - 1);
      // The server has its answer now: its calls get a whole period again to reply.
      for (const refresh of this.clocks.get(server) ?? []) refresh();
    }
  }
}

/** What the client offers, shared by every server connection. */
export interface ClientServices {
  bus: Pick<EventSource, 'emit'>;
  /** Which servers wait on this client now. */
  waits: ServerWaits;
  /** The roots to offer, or undefined when roots are not offered. */
  roots?: () => Root[];
  sampling: SamplingGate;
  /** Undefined when the persona does not forward elicitation. */
  elicitation?: ElicitationDesk;
}

/** `folder` (an absolute path) as a `file://` URI. */
export function fileUri(folder: string): string {
  return `file://${folder.split('/').map(encodeURIComponent).join('/')}`;
}

/** The capabilities a client declares for `services`. */
export function clientCapabilities(s: ClientServices): ClientCapabilities {
  return {
    ...(s.roots ? { roots: { listChanged: false } } : {}),
    ...(s.sampling.offered ? { sampling: {} } : {}),
    ...(s.elicitation ? { elicitation: { form: {} } } : {}),
  };
}

/**
 * Installs the handlers on `client`, the connection to `server`; `redact` hides its secrets. The
 * SDK's schemas are loaded here, with the client (the SDK is an optional peer: the McpClient
 * loads without it and says what to install when a server is configured).
 */
export async function installHandlers(client: Client, server: string, s: ClientServices, redact: (text: string) => string): Promise<void> {
  const { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema, McpError } = await import('@modelcontextprotocol/sdk/types.js').catch(
    peerMissing('@modelcontextprotocol/sdk', 'McpClient'),
  );
  // A refusal goes to the server as the protocol's error, with its code and sentence.
  const answering = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (e) {
      throw e instanceof RequestRefused ? new McpError(e.code, e.message) : e;
    }
  };
  if (s.roots) {
    const roots = s.roots;
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots() }));
  }
  if (s.sampling.offered) client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => answering(() => s.waits.during(server, () => s.sampling.answer(server, req.params, extra.signal))));
  if (s.elicitation) {
    const desk = s.elicitation;
    client.setRequestHandler(ElicitRequestSchema, (req, extra) => answering(() => s.waits.during(server, () => desk.ask(server, req.params, extra.signal))));
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const data = typeof n.params.data === 'string' ? n.params.data : JSON.stringify(n.params.data);
    s.bus.emit('mcp-client:log', { server, level: n.params.level, ...(n.params.logger ? { logger: clip(n.params.logger, 100) } : {}), data: redact(clip(data ?? '', MAX_LOG_CHARS)) });
  });
}
