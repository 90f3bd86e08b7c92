/**
 * The McpClient: starts the configured MCP servers, registers each one's tools with the ToolRunner
 * under its namespace (once per server when several share a namespace: instances), and keeps the
 * registrations, the module reports (`mcp:<name>`) and the widget in step with each server's life.
 */
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import type { Disposable } from '../../src/kernel/lifecycle.ts';
import { namespaceOfServer, type McpServers } from '../../src/kernel/mcp-servers.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { namespaceOf } from '../../src/kernel/namespaces.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { ModuleParts } from '../../src/kernel/upgrade.ts';
import type { FileStore } from '../../src/platform/platform.ts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fileUri, ServerWaits, type ClientServices } from './client-handlers.ts';
import { ElicitationDesk, type ElicitationAnswer } from './elicitation.ts';
import { contentDeclarations, isContentTool } from './remote-content.ts';
import { declarationsFromTools } from './results.ts';
import { SamplingGate, type SamplingModel } from './sampling.ts';
import { createServerConnection, type McpServerStatus, type ServerConnection } from './server-connection.ts';
import { describeTarget } from './transport.ts';
import type { McpClientApi } from './mcp-client-contract.ts';

export type { McpClientApi } from './mcp-client-contract.ts';

/** Options of {@link createMcpClient}. */
export interface McpClientOptions {
  runner: ToolRunnerApi;
  bus: Pick<EventSource, 'emit'>;
  /** Reports each server as a module part, `mcp:<name>`. */
  parts: ModuleParts;
  /** The booted persona: its upgrades' namespaces are reserved. */
  persona: Persona;
  /** The servers to run. */
  servers: McpServers;
  platformKind: 'node' | 'browser';
  /** Where each server's last tool list is kept, so a server that cannot start still has its tools answer why. Default: none. */
  store?: FileStore;
  /** How long a server may take to start and list its tools, in ms (a server's `startTimeoutMs` wins). Default: 30000. */
  startTimeoutMs?: number;
  /** Timeout of one tool call, in ms; each progress notification of the call starts it again. Default: 60000. */
  callTimeoutMs?: number;
  /** Longest a call may take however much progress it reports, in ms. Default: 600000. */
  maxCallTimeoutMs?: number;
  /** How long an elicitation waits for the person before it is cancelled, in ms. Default: 300000. */
  elicitationTimeoutMs?: number;
  /** Answers servers' sampling requests (the Agent upgrade), when the persona allows them. Default: none. */
  model?: SamplingModel;
  /** The workspace folder offered as the client's root, when the persona allows roots. Default: none. */
  workspaceFolder?: string;
  /** Sent to servers as the client version. Default: `1.0.0`. */
  version?: string;
}


interface Entry {
  name: string;
  conn: ServerConnection;
  registration?: Disposable;
  registeredKey?: string;
  reported?: McpServerStatus['state'];
  /** Tools from the cache, until the server itself lists them. */
  cached?: Tool[];
}

const CACHE_SUFFIX = '.tools.json';

/** What starting the servers takes beyond their start limit: spawning their processes, reading the tools cache. */
const INIT_ALLOWANCE_MS = 10_000;

/** Creates the client (see the module comment); `init()` starts every server. */
export function createMcpClient(o: McpClientOptions) {
  const startTimeoutMs = o.startTimeoutMs ?? 30_000;
  const callTimeoutMs = o.callTimeoutMs ?? 60_000;
  const maxCallTimeoutMs = Math.max(o.maxCallTimeoutMs ?? 600_000, callTimeoutMs);
  const desk = new ElicitationDesk(o.bus, o.elicitationTimeoutMs ?? 300_000);
  const sampling = new SamplingGate(o.persona, o.bus, o.model);
  const folder = o.workspaceFolder;
  const services: ClientServices = {
    bus: o.bus,
    waits: new ServerWaits(),
    sampling,
    ...(o.persona.mcp?.roots && folder ? { roots: () => [{ uri: fileUri(folder), name: 'Armature workspace' }] } : {}),
    ...(o.persona.mcp?.elicitation ? { elicitation: desk } : {}),
  };
  const reserved = new Map(o.persona.upgrades.map((id) => [namespaceOf(id), id]));
  const configured = Object.entries(o.servers).filter(([, spec]) => !spec.disabled);
  const byNamespace = new Map<string, number>();
  for (const [name, spec] of configured) byNamespace.set(namespaceOfServer(name, spec), (byNamespace.get(namespaceOfServer(name, spec)) ?? 0) + 1);
  const entries = new Map<string, Entry>();

  const register = (e: Entry, tools: readonly Tool[]) => {
    const st = e.conn.status();
    // The ToolRunner's clock is the longest a call may take: the SDK keeps the shorter one, restarted by progress.
    const own = declarationsFromTools(tools, { server: e.name, namespace: st.namespace, timeoutMs: maxCallTimeoutMs });
    const content = contentDeclarations(e.conn.capabilities(), { server: e.name, namespace: st.namespace, timeoutMs: callTimeoutMs, ownTools: new Set(tools.map((t) => t.name)) });
    const declarations = [...own.declarations, ...content.declarations];
    const skipped = [...own.skipped, ...content.skipped];
    const key = JSON.stringify(declarations);
    if (key === e.registeredKey) return;
    e.registration?.dispose();
    e.registration = undefined;
    e.registeredKey = key;
    const prefix = `${st.namespace}.`;
    const contentNames = new Set(content.declarations.map((d) => d.name));
    const executor = (name: string, args: Record<string, unknown>, call: { signal: AbortSignal }) => {
      const own = name.slice(prefix.length);
      return contentNames.has(name) && isContentTool(own) ? e.conn.content(own, args, call.signal) : e.conn.call(own, args, call.signal);
    };
    e.registration = o.runner.registerTools(declarations, executor, st.instance ? { instance: st.instance } : {});
    e.conn.setRegistered(declarations.map((d) => d.name), skipped);
  };

  const persist = async (e: Entry, tools: readonly Tool[]) => {
    if (!o.store) return;
    const data = new TextEncoder().encode(JSON.stringify({ target: e.conn.status().target, tools }));
    await o.store.put({ path: `${e.name}${CACHE_SUFFIX}`, data, mtime: Date.now() }).catch(() => undefined);
  };

  const changed = (e: Entry) => {
    const st = e.conn.status();
    if (st.state === 'ready') {
      try {
        register(e, e.conn.tools());
        e.cached = undefined;
        void persist(e, e.conn.tools());
      } catch (err) {
        const info = err instanceof ArmatureError ? err.toJSON() : { code: 'MCP_REGISTER_FAILED', message: String((err as Error).message ?? err) };
        o.parts.failed(`mcp:${e.name}`, info, st.startMs ?? 0);
        e.reported = 'failed';
        return;
      }
    }
    if (st.state === e.reported) return;
    e.reported = st.state;
    const id = `mcp:${e.name}`;
    if (st.state === 'starting') o.parts.loading(id);
    else if (st.state === 'ready') o.parts.loaded(id, { version: st.server?.version ?? '0.0.0', durationMs: st.startMs ?? 0 });
    else if (st.state === 'failed') o.parts.failed(id, st.error ?? { code: 'MCP_FAILED', message: `${e.name} failed` }, st.startMs ?? 0);
  };

  for (const [name, spec] of configured) {
    const namespace = namespaceOfServer(name, spec);
    const entry: Entry = {
      name,
      conn: createServerConnection({
        name,
        spec,
        namespace,
        ...((byNamespace.get(namespace) ?? 0) > 1 ? { instance: name } : {}),
        platformKind: o.platformKind,
        startTimeoutMs: spec.startTimeoutMs ?? startTimeoutMs,
        callTimeoutMs,
        maxCallTimeoutMs,
        services,
        clientVersion: o.version ?? '1.0.0',
        onChange: () => changed(entry),
      }),
    };
    entries.set(name, entry);
  }

  const entryOf = (name: string): Entry => {
    const e = entries.get(name);
    if (e) return e;
    throw new ArmatureError('UNKNOWN_MCP_SERVER', `[mcp] no MCP server ${JSON.stringify(name)}; servers: ${[...entries.keys()].join(', ') || 'none configured'}`, {
      hint: 'List them with list_mcp_servers; add servers to the persona\'s mcpServers or pass --mcp-config FILE.',
    });
  };

  const start = async (e: Entry) => {
    const ns = e.conn.status().namespace;
    const owner = reserved.get(ns);
    if (owner) {
      o.parts.failed(`mcp:${e.name}`, { code: 'MCP_NAMESPACE_TAKEN', message: `the MCP server ${e.name} would put its tools in namespace "${ns}", which ${owner} uses; rename the server or set "namespace" in its entry` }, 0);
      e.reported = 'failed';
      return;
    }
    const ready = await e.conn.start();
    // A server that cannot start still has its last known tools answer why, instead of vanishing.
    if (!ready && !e.registration && e.cached?.length) {
      try {
        register(e, e.cached);
      } catch {
        // The cached list no longer registers (e.g. a name clash): the failure report stands.
      }
    }
  };

  const loadCache = async () => {
    if (!o.store) return;
    for (const f of await o.store.load().catch(() => [])) {
      const e = entries.get(f.path.slice(0, -CACHE_SUFFIX.length));
      if (!e || !f.path.endsWith(CACHE_SUFFIX)) continue;
      try {
        const cached = JSON.parse(new TextDecoder().decode(f.data)) as { target: string; tools: Tool[] };
        if (cached.target === describeTarget(o.servers[e.name]!)) e.cached = cached.tools;
      } catch {
        // A damaged cache entry is ignored; the next successful start rewrites it.
      }
    }
  };

  const api: McpClientApi = {
    listServers: () => [...entries.values()].map((e) => e.conn.status()),
    getServer: (name) => entryOf(name).conn.status(),
    async restart(name) {
      const e = entryOf(name);
      sampling.reset(name);
      await start(e);
      return e.conn.status();
    },
    addElicitationResponder: (responder) => desk.addResponder(responder),
    pendingElicitations: () => desk.pending(),
    answerElicitation: (id, answer) => desk.answer(id, answer),
  };

  const tools = {
    list_mcp_servers: () => ({ servers: api.listServers() }),
    restart_mcp_server: async (args: Record<string, unknown>) => {
      const st = await api.restart(String(args.name));
      if (st.state !== 'ready') throw new ArmatureError(st.error?.code ?? 'MCP_START_FAILED', st.error?.message ?? `${st.name} did not start`, { hint: st.hint, details: { server: st.name, state: st.state } });
      return st;
    },
    answer_elicitation: (args: Record<string, unknown>) => api.answerElicitation(String(args.id), elicitationAnswer(args)),
  };

  return {
    api,
    tools,
    /**
     * How long `init` may take: the slowest server's start limit, and time to spawn it and read
     * the cache; none without servers (the boot's default applies).
     */
    initTimeoutMs: configured.length ? Math.max(...configured.map(([, spec]) => spec.startTimeoutMs ?? startTimeoutMs)) + INIT_ALLOWANCE_MS : undefined,
    /** Starts every server in parallel; resolves when each is ready or failed. Never rejects. */
    async init(): Promise<void> {
      await loadCache();
      await Promise.all([...entries.values()].map(start));
    },
    async dispose(): Promise<void> {
      await Promise.all(
        [...entries.values()].map(async (e) => {
          e.registration?.dispose();
          await e.conn.stop();
          o.parts.disposed(`mcp:${e.name}`);
        }),
      );
    },
  };
}

/** The answer `answer_elicitation` was given (its schema checked the shapes): content only with accept. */
function elicitationAnswer(args: Record<string, unknown>): ElicitationAnswer {
  const action = args.action as ElicitationAnswer['action'];
  if (action !== 'accept') return { action };
  return { action, content: (args.content ?? {}) as Record<string, string | number | boolean | string[]> };
}
