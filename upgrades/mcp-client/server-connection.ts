/**
 * One MCP server: started (or reached), its tools listed, calls forwarded, failures turned into
 * readable errors. A server that cannot start, does not answer within its start timeout, exits or
 * becomes unreachable is `failed` with the reason (and the last lines it wrote to stderr);
 * `start()` again brings it back.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { peerMissing } from '../../src/kernel/optional-peer.ts';
import type { McpServerSpec } from '../../src/kernel/mcp-servers.ts';
import { clientCapabilities, installHandlers, type ClientServices } from './client-handlers.ts';
import { requestContent, type ContentTool } from './remote-content.ts';
import { valueFromResult } from './results.ts';
import type { McpServerStatus, SkippedTool } from './mcp-client-contract.ts';

export type { McpServerState, McpServerStatus } from './mcp-client-contract.ts';
import { describeTarget, openTransport, redact, secretsOf, type OpenedTransport } from './transport.ts';



/** Options of {@link createServerConnection}. */
export interface ServerConnectionOptions {
  name: string;
  spec: McpServerSpec;
  namespace: string;
  instance?: string;
  platformKind: 'node' | 'browser';
  /** How long starting (connect + tools/list) may take, in ms. */
  startTimeoutMs: number;
  /** Per-call timeout passed to the SDK, in ms; each progress notification starts it again. */
  callTimeoutMs: number;
  /** Longest a call may take however much progress it reports, in ms. */
  maxCallTimeoutMs: number;
  /** What the client offers servers (roots, sampling, elicitation) and the bus. */
  services: ClientServices;
  /** Armature's version, sent as the client version. */
  clientVersion: string;
  /** Called whenever the state or the tool list changes. */
  onChange(): void;
}

class StartTimeout extends Error {}

/** A connection to one configured MCP server (see the module comment). */
export function createServerConnection(o: ServerConnectionOptions) {
  const secrets = secretsOf(o.spec);
  const target = describeTarget(o.spec);
  const status: McpServerStatus = {
    name: o.name,
    namespace: o.namespace,
    ...(o.instance ? { instance: o.instance } : {}),
    transport: 'command' in o.spec ? 'stdio' : 'http',
    target,
    state: 'stopped',
    offers: [],
    tools: [],
    skipped: [],
    calls: 0,
    errors: 0,
    restarts: 0,
  };
  let tools: Tool[] = [];
  let capabilities: ServerCapabilities | undefined;
  let client: Client | undefined;
  let opened: OpenedTransport | undefined;
  // Each start is a generation: events from an older connection (its close) are ignored.
  let generation = 0;
  let starts = 0;

  const said = () => {
    const tail = opened?.stderrTail() ?? '';
    return tail ? `; it wrote to stderr: ${tail}` : '';
  };
  const fail = (code: string, message: string, hint: string) => {
    status.state = 'failed';
    status.error = { code, message: redact(message, secrets) };
    status.hint = hint;
    o.onChange();
  };
  const restartHint = `Fix what the message names, then restart it: restart_mcp_server {"name": "${o.name}"} (or Restart in the McpClient widget).`;

  async function close(): Promise<void> {
    generation++;
    delete status.pid;
    const c = client;
    client = undefined;
    await c?.close().catch(() => undefined);
  }

  async function listAll(c: Client): Promise<Tool[]> {
    const out: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.listTools(cursor ? { cursor } : {}, { timeout: o.startTimeoutMs });
      out.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  return {
    status: (): McpServerStatus => ({ ...status, offers: [...status.offers], tools: [...status.tools], skipped: [...status.skipped] }),
    tools: (): readonly Tool[] => tools,
    /** What the server declared it offers, once it answered. */
    capabilities: (): ServerCapabilities | undefined => capabilities,
    /** Sets the names the client registered (and what it skipped), for the status. */
    setRegistered(names: string[], skipped: SkippedTool[]): void {
      status.tools = names;
      status.skipped = skipped;
    },

    /** Starts (or restarts) the server. Never throws; resolves to whether it is ready. */
    async start(): Promise<boolean> {
      await close();
      const gen = generation;
      if (starts++ > 0) status.restarts++;
      status.state = 'starting';
      delete status.error;
      delete status.hint;
      o.onChange();
      const t0 = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        opened = await openTransport(o.spec, o.platformKind);
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js').catch(peerMissing('@modelcontextprotocol/sdk', 'McpClient'));
        const c = new Client(
          { name: 'armature', version: o.clientVersion },
          {
            capabilities: clientCapabilities(o.services),
            listChanged: {
              tools: {
                onChanged: (err, list) => {
                  if (gen !== generation || err || !list) return;
                  tools = list;
                  o.onChange();
                },
              },
            },
          },
        );
        await installHandlers(c, o.name, o.services, (text) => redact(text, secrets));
        c.onclose = () => {
          // While starting, the start itself reports what went wrong, with the same stderr.
          if (gen !== generation || status.state === 'starting') return;
          client = undefined;
          delete status.pid;
          fail('MCP_SERVER_EXITED', `the MCP server ${o.name} (${target}) stopped: its ${status.transport === 'stdio' ? 'process exited' : 'connection closed'}${said()}`, restartHint);
        };
        client = c;
        const started = (async () => {
          await c.connect(opened!.transport, { timeout: o.startTimeoutMs });
          return listAll(c);
        })();
        const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StartTimeout()), o.startTimeoutMs)));
        tools = await Promise.race([started, timeout]);
        const info = c.getServerVersion();
        if (info) status.server = { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) };
        capabilities = c.getServerCapabilities();
        status.offers = (['resources', 'prompts', 'logging', 'completions'] as const).filter((k) => capabilities?.[k]);
        const pid = (opened.transport as { pid?: number | null }).pid;
        if (typeof pid === 'number') status.pid = pid;
        status.state = 'ready';
        status.readyAt = Date.now();
        status.startMs = performance.now() - t0;
        o.onChange();
        return true;
      } catch (e) {
        const tail = said();
        await close();
        if (e instanceof StartTimeout) {
          fail('MCP_START_TIMEOUT', `the MCP server ${o.name} (${target}) did not answer within ${o.startTimeoutMs} ms${tail}`, `Check that ${target} is an MCP server, or raise startTimeoutMs for it; then restart it.`);
        } else {
          const message = (e as Error)?.message ?? String(e);
          const cors = o.platformKind === 'browser' && status.transport === 'http' && /fetch/i.test(message)
            ? ' — from a browser this means the server is down or does not allow this page\'s origin (CORS: it must answer OPTIONS with Access-Control-Allow-Origin and expose mcp-session-id)'
            : '';
          fail(e instanceof ArmatureError ? e.code : 'MCP_START_FAILED', `the MCP server ${o.name} (${target}) could not start: ${message}${cors}${tail}`, e instanceof ArmatureError && e.hint ? e.hint : restartHint);
        }
        return false;
      } finally {
        clearTimeout(timer);
      }
    },

    /** Stops the server (kills a stdio process). */
    async stop(): Promise<void> {
      await close();
      status.state = 'stopped';
    },

    /** Calls one of its tools by its own name. Throws an ArmatureError with the reason. */
    async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
      const full = `${o.namespace}.${tool}`;
      const unavailable = () =>
        new ArmatureError('MCP_SERVER_UNAVAILABLE', status.error ? `${full} cannot run: ${status.error.message}` : `${full} cannot run: the MCP server ${o.name} is ${status.state}`, {
          hint: status.hint ?? restartHint,
          details: { server: o.name, state: status.state },
        });
      const c = client;
      if (status.state !== 'ready' || !c) throw unavailable();
      status.calls++;
      // callTimeoutMs of silence ends the call; progress starts the clock again (the SDK holds the maximum).
      const idle = o.services.waits.clock(o.name, o.callTimeoutMs);
      try {
        const result = await c.callTool({ name: tool, arguments: args }, undefined, {
          signal: AbortSignal.any([signal, idle.signal]),
          timeout: o.maxCallTimeoutMs,
          onprogress: (p) => {
            idle.refresh();
            o.services.bus.emit('mcp-client:progress', { server: o.name, tool: full, progress: p.progress, ...(p.total === undefined ? {} : { total: p.total }), ...(p.message ? { message: redact(p.message.slice(0, 500), secrets) } : {}) });
          },
        });
        return valueFromResult(full, result as CallToolResult);
      } catch (e) {
        status.errors++;
        if (e instanceof ArmatureError) throw e;
        if (idle.signal.aborted && !signal.aborted) {
          throw new ArmatureError('MCP_CALL_TIMEOUT', `${full}: the MCP server ${o.name} sent neither the result nor progress for ${o.callTimeoutMs} ms`, {
            hint: `Retry with less work, or raise the McpClient's callTimeoutMs (a server that reports progress may run up to maxCallTimeoutMs, ${o.maxCallTimeoutMs} ms).`,
            details: { server: o.name, callTimeoutMs: o.callTimeoutMs },
          });
        }
        if (status.state !== 'ready') throw unavailable();
        const message = redact((e as Error)?.message ?? String(e), secrets);
        if (status.transport === 'http' && /fetch failed|Failed to fetch|ECONNREFUSED|NetworkError/i.test(message)) {
          fail('MCP_SERVER_UNREACHABLE', `the MCP server ${o.name} (${target}) cannot be reached: ${message}`, restartHint);
          throw unavailable();
        }
        const code = (e as { code?: unknown }).code;
        throw new ArmatureError('MCP_REQUEST_FAILED', `${full}: ${message}`, {
          hint: 'The MCP server rejected the request; check the arguments against read_skill, then retry.',
          details: typeof code === 'number' ? { mcpCode: code } : undefined,
        });
      } finally {
        idle.stop();
      }
    },

    /** Lists or reads the server's resources and prompts (`remote-content.ts`). Throws an ArmatureError with the reason. */
    async content(tool: ContentTool, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
      const c = client;
      const full = `${o.namespace}.${tool}`;
      if (status.state !== 'ready' || !c) {
        throw new ArmatureError('MCP_SERVER_UNAVAILABLE', `${full} cannot run: the MCP server ${o.name} is ${status.state}`, { hint: status.hint ?? restartHint });
      }
      status.calls++;
      try {
        return await requestContent(c, tool, args, { signal, timeout: o.callTimeoutMs });
      } catch (e) {
        status.errors++;
        const code = (e as { code?: unknown }).code;
        throw new ArmatureError('MCP_REQUEST_FAILED', `${full}: ${redact((e as Error)?.message ?? String(e), secrets)}`, {
          hint: tool === 'read_resource' ? 'Check the URI against list_resources (or the resource_link it came from), then retry.' : 'Check the arguments against list_prompts, then retry.',
          details: typeof code === 'number' ? { mcpCode: code } : undefined,
        });
      }
    },
  };
}

/** A connection made by {@link createServerConnection}. */
export type ServerConnection = ReturnType<typeof createServerConnection>;
