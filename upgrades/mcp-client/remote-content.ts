/**
 * A server's resources and prompts as tools of its namespace, so Python reaches them like its
 * tools: `from tools.<namespace> import list_resources, read_resource, list_prompts, get_prompt`.
 * Offered only when the server declares the capability; a tool of the server's own with one of
 * these names wins (ours is skipped, with the reason). A `resource_link` a tool returned is
 * followed with `read_resource(link["uri"])`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import type { SkippedTool } from './results.ts';

/** The four tools, by own name (without the namespace). */
export const CONTENT_TOOLS = ['list_resources', 'read_resource', 'list_prompts', 'get_prompt'] as const;
/** One of {@link CONTENT_TOOLS}. */
export type ContentTool = (typeof CONTENT_TOOLS)[number];

const SCHEMAS: Record<ContentTool, { capability: 'resources' | 'prompts'; description: string; inputSchema: ToolDeclaration['inputSchema'] }> = {
  list_resources: {
    capability: 'resources',
    description: 'List the resources this MCP server offers ({uri, name, mimeType, ...}) and its resource templates; page with cursor.',
    inputSchema: { type: 'object', properties: { cursor: { type: 'string', description: 'nextCursor of the previous page.' } }, additionalProperties: false },
  },
  read_resource: {
    capability: 'resources',
    description: 'Read one resource of this MCP server by its URI (from list_resources, a template, or a resource_link a tool returned): {contents: [{uri, mimeType, text | blob (base64)}]}.',
    inputSchema: { type: 'object', properties: { uri: { type: 'string', minLength: 1, description: 'The resource\'s URI.' } }, required: ['uri'], additionalProperties: false },
  },
  list_prompts: {
    capability: 'prompts',
    description: 'List the prompts this MCP server offers, with their arguments.',
    inputSchema: { type: 'object', properties: { cursor: { type: 'string', description: 'nextCursor of the previous page.' } }, additionalProperties: false },
  },
  get_prompt: {
    capability: 'prompts',
    description: 'Get one prompt of this MCP server filled with its arguments: {description, messages: [{role, content}]}.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1, description: 'The prompt\'s name (list_prompts).' }, arguments: { type: 'object', additionalProperties: { type: 'string' }, description: 'Its arguments by name, each a string.' } },
      required: ['name'],
      additionalProperties: false,
    },
  },
};

/** The content tools a server with `capabilities` gets, and those skipped because its own tools take the names. */
export function contentDeclarations(capabilities: ServerCapabilities | undefined, o: { server: string; namespace: string; timeoutMs: number; ownTools: ReadonlySet<string> }): { declarations: ToolDeclaration[]; skipped: SkippedTool[] } {
  const declarations: ToolDeclaration[] = [];
  const skipped: SkippedTool[] = [];
  for (const name of CONTENT_TOOLS) {
    const s = SCHEMAS[name];
    if (!capabilities?.[s.capability]) continue;
    if (o.ownTools.has(name)) {
      skipped.push({ name, reason: `the server has a tool of its own named ${name}, which is registered instead; its ${s.capability} are not reachable as tools` });
      continue;
    }
    declarations.push({
      name: `${o.namespace}.${name}`,
      namespace: o.namespace,
      module: 'McpClient',
      description: `${s.description} (MCP server ${o.server})`,
      inputSchema: s.inputSchema,
      pythonCallable: true,
      timeoutMs: o.timeoutMs,
      annotations: { readOnlyHint: true, title: `${name.replace('_', ' ')} of ${o.server}` },
    });
  }
  return { declarations, skipped };
}

/** Whether `name` (without the namespace) is one of the content tools. */
export function isContentTool(name: string): name is ContentTool {
  return (CONTENT_TOOLS as readonly string[]).includes(name);
}

/** Runs one of the content tools on `client`; what the SDK throws is the caller's to describe. */
export async function requestContent(client: Client, tool: ContentTool, args: Record<string, unknown>, options: { signal: AbortSignal; timeout: number }): Promise<unknown> {
  const cursor = typeof args.cursor === 'string' ? { cursor: args.cursor } : {};
  switch (tool) {
    case 'list_resources': {
      const page = await client.listResources(cursor, options);
      // Templates come with the first page: they are few, and what a caller fills in.
      const templates = args.cursor === undefined ? (await client.listResourceTemplates({}, options).catch(() => ({ resourceTemplates: [] }))).resourceTemplates : undefined;
      return { resources: page.resources, ...(templates ? { resourceTemplates: templates } : {}), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }
    case 'read_resource':
      return client.readResource({ uri: String(args.uri) }, options);
    case 'list_prompts': {
      const page = await client.listPrompts(cursor, options);
      return { prompts: page.prompts, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }
    case 'get_prompt':
      return client.getPrompt({ name: String(args.name), ...(args.arguments ? { arguments: args.arguments as Record<string, string> } : {}) }, options);
  }
}
