/**
 * Armature as an MCP server: the booted persona's tools (input and output schemas, annotations,
 * structured results), `execute_python`'s output streamed while it runs and cancellation that
 * interrupts it, the system-prompt fragment as a prompt (and as the server's instructions), and
 * skills and workspace files as resources. Built on the SDK's low-level `Server`, because the
 * tools already have JSON Schemas and are registered at run time.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot.ts';
import { formatTools } from '../tools-format/format-tools.ts';
import { listResources, readResource, resourceTemplates, type ResourceSources } from './resources.ts';
import { toCallToolResult } from './tool-results.ts';

/** Name of the prompt that carries the system-prompt fragment. */
export const SYSTEM_PROMPT_NAME = 'armature-system-prompt';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Version the server reports. Default: `0.0.0`. */
  version?: string;
}

/** What the MCP server needs from PythonTool, structurally. */
interface PythonSide {
  getPromptPlan(): { text: string; mode: string };
  listSkills(): { namespace: string; tools: string[] }[];
  readSkill(namespace: string): string;
}

let calls = 0;
let sessions = 0;

/**
 * One MCP server session over `sys` (several sessions may share one system). Its tool calls carry
 * a session of its own (`mcp-<n>`), so its Python globals are its own, apart from other clients'.
 * `close()` ends the session (`session:ended`: its Python runtime goes back to the pool) and its
 * subscriptions; the system stays up.
 */
export async function createMcpServer(sys: ArmatureSystem, options: McpServerOptions = {}): Promise<{ server: Server; close(): Promise<void> }> {
  const loaded = (id: string) => sys.modules.some((m) => m.id === id && m.state === 'loaded' && !m.parent);
  const python = loaded('PythonTool') ? await sys.resolve<PythonSide>('PythonTool') : undefined;
  const sources: ResourceSources = {
    ...(python ? { python } : {}),
    ...(loaded('Workspace') ? { workspace: await sys.resolve<NonNullable<ResourceSources['workspace']>>('Workspace') } : {}),
  };
  const session = `mcp-${++sessions}`;
  const server = new Server(
    { name: 'armature', title: 'Armature', version: options.version ?? '0.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: {}, logging: {} },
      // Clients that show server instructions to their model give it the tool guide up front.
      ...(python ? { instructions: python.getPromptPlan().text } : {}),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: formatTools(sys.tools.getToolDeclarations(), 'mcp').tools as Tool[] }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name } = req.params;
    const callId = `mcp-${++calls}`;
    const progressToken = req.params._meta?.progressToken;
    let progress = 0;
    // A Python run's output, as it is produced: log messages always, progress when asked for.
    const stream = (kind: 'stdout' | 'stderr') =>
      sys.bus.on(kind === 'stdout' ? 'python:stdout' : 'python:stderr', (p) => {
        if (p.runId !== callId || extra.signal.aborted) return;
        void extra.sendNotification({ method: 'notifications/message', params: { level: kind === 'stdout' ? 'info' : 'warning', logger: `python.${kind}`, data: p.chunk } }).catch(() => undefined);
        if (progressToken !== undefined) {
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress, message: p.chunk } }).catch(() => undefined);
        }
      });
    const subs = name === 'execute_python' ? [stream('stdout'), stream('stderr')] : [];
    try {
      const result = await sys.tools.executeTool(name, req.params.arguments ?? {}, { caller: 'mcp', callId, signal: extra.signal, session });
      return toCallToolResult(result);
    } finally {
      for (const s of subs) s.dispose();
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: python
      ? [{ name: SYSTEM_PROMPT_NAME, title: 'Armature system prompt', description: 'How to use this persona\'s tools: from Python inside execute_python, with the skill index (or the tools to call directly, for a persona with few tools).' }]
      : [],
  }));

  server.setRequestHandler(GetPromptRequestSchema, (req) => {
    if (!python || req.params.name !== SYSTEM_PROMPT_NAME) {
      throw new McpError(ErrorCode.InvalidParams, `no prompt ${quote(req.params.name)}; prompts: ${python ? SYSTEM_PROMPT_NAME : 'none (this persona does not load PythonTool)'}`);
    }
    const plan = python.getPromptPlan();
    return { description: `Armature system prompt (${plan.mode})`, messages: [{ role: 'user', content: { type: 'text', text: plan.text } }] };
  });

  server.setRequestHandler(ListResourcesRequestSchema, (req) => listResources(sources, req.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: resourceTemplates(sources) }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => readResource(sources, req.params.uri));

  // Lists change when an MCP server's tools come and go, and when workspace files are created or deleted.
  let pending: ReturnType<typeof setTimeout> | undefined;
  const resourcesChanged = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      void server.sendResourceListChanged().catch(() => undefined);
    }, 100);
  };
  const toolsChanged = () => void server.sendToolListChanged().catch(() => undefined);
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
        for (const s of subs) s.dispose();
        await server.close();
        sys.bus.emit('session:ended', { session });
      })()),
  };
}
