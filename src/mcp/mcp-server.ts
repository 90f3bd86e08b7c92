/**
 * Armature as an MCP server: the booted persona's tools (input and output schemas, annotations,
 * structured results), `execute_python`'s output streamed while it runs and cancellation that
 * interrupts it, the system-prompt fragment as a prompt (and as the server's instructions), and
 * skills and workspace files as resources. Built on the SDK's low-level `Server`, because the
 * tools already have JSON Schemas and are registered at run time. Each concern has its file:
 * `tool-calls.ts`, `prompts.ts`, `resources.ts`, `log-level.ts`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestParamsSchema, SetLevelRequestParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { DEFAULT_MAX_RESULT_BYTES, deleteKeptResults } from './large-results.ts';
import { LogLevel } from './log-level.ts';
import { serveCompletions } from './completions.ts';
import { servePrompts } from './prompts.ts';
import { onRequest } from './requests.ts';
import { listResources, readResource, resourceTemplates } from './resources.ts';
import type { AgentSide, McpSession, PythonSide, WorkspaceSide } from './session.ts';
import { serveSubscriptions } from './subscriptions.ts';
import { serveTools } from './tool-calls.ts';

export { SYSTEM_PROMPT_NAME } from './prompts.ts';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Version the server reports. Default: `0.0.0`. */
  version?: string;
  /**
   * A tool result whose JSON is larger than this many bytes is kept in the workspace and sent as a
   * `resource_link` with a preview (the SDK's stdio client drops a connection past 10 MiB).
   * Default: 1048576 (1 MiB).
   */
  maxResultBytes?: number;
}

let sessions = 0;

/**
 * One MCP server session over `sys` (several sessions may share one system). Its tool calls carry
 * a session of its own (`mcp-<n>`), so its Python globals are its own, apart from other clients'.
 * `close()` ends the session (`session:ended`: its Python runtime goes back to the pool), its
 * subscriptions and the results it kept; the system stays up.
 */
export async function createMcpServer(sys: ArmatureSystem, options: McpServerOptions = {}): Promise<{ server: Server; close(): Promise<void> }> {
  const loaded = (id: string) => sys.modules.some((m) => m.id === id && m.state === 'loaded' && !m.parent);
  const python = loaded('PythonTool') ? await sys.resolve<PythonSide>('PythonTool') : undefined;
  const workspace = loaded('Workspace') ? await sys.resolve<WorkspaceSide>('Workspace') : undefined;
  const agent = loaded('Agent') ? await sys.resolve<AgentSide>('Agent') : undefined;
  const server = new Server(
    { name: 'armature', title: 'Armature', version: options.version ?? '0.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} },
      // Clients that show server instructions to their model give it the tool guide up front.
      ...(python ? { instructions: python.getPromptPlan().text } : {}),
    },
  );
  const s: McpSession = {
    sys,
    server,
    id: `mcp-${++sessions}`,
    log: new LogLevel(),
    ...(python ? { python } : {}),
    ...(workspace ? { workspace } : {}),
    ...(agent ? { agent } : {}),
    maxResultBytes: options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
  };
  const sources = { ...(python ? { python } : {}), ...(workspace ? { workspace } : {}) };

  const tools = serveTools(s);
  servePrompts(s);
  serveCompletions(s);
  const subscriptions = serveSubscriptions(s);
  server.setRequestHandler(ListResourcesRequestSchema, (req) => listResources(sources, req.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: resourceTemplates(sources) }));
  onRequest(server, 'resources/read', ReadResourceRequestParamsSchema, { uri: 'the URI of the resource, as resources/list gives it' }, (params) => readResource(sources, params.uri));
  onRequest(server, 'logging/setLevel', SetLevelRequestParamsSchema, { level: 'the least severe level to send' }, (params) => {
    s.log.set(params.level);
    return {};
  });

  // Lists change when an MCP server's tools come and go, and when workspace files are created or
  // deleted: the prompts with them (a prompt per skill).
  let pending: ReturnType<typeof setTimeout> | undefined;
  const resourcesChanged = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      void server.sendResourceListChanged().catch(() => undefined);
    }, 100);
  };
  const toolsChanged = () => {
    void server.sendToolListChanged().catch(() => undefined);
    void server.sendPromptListChanged().catch(() => undefined);
  };
  const subs = [
    sys.bus.on('tool:registered', toolsChanged),
    sys.bus.on('tool:unregistered', toolsChanged),
    sys.bus.on('workspace:deleted', resourcesChanged),
    sys.bus.on('workspace:written', resourcesChanged),
  ];

  let closing: Promise<void> | undefined;
  return {
    server,
    // Once: the transport's close (a DELETE, an expiry) and the caller's may both ask for it.
    close: () =>
      (closing ??= (async () => {
        clearTimeout(pending);
        for (const sub of subs) sub.dispose();
        subscriptions.dispose();
        tools.dispose();
        await server.close();
        if (workspace) await deleteKeptResults(workspace, s.id);
        sys.bus.emit('session:ended', { session: s.id });
      })()),
  };
}
