/**
 * What crosses between an MCP server and the ToolRunner: a server's tools become declarations
 * under the server's namespace, and a tool's MCP result becomes the value Armature tools return
 * (or an error with the server's own words).
 */
import * as z from 'zod';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { clip, quote, shortName } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { NAMESPACED_TOOL_NAME, type ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';


import type { SkippedTool } from './mcp-client-contract.ts';

export type { SkippedTool } from './mcp-client-contract.ts';

/** Options of {@link declarationsFromTools}. */
export interface DeclarationOptions {
  /** The server's name, for descriptions. */
  server: string;
  /** The namespace the tools go under. */
  namespace: string;
  /** Per-call timeout the declarations carry, in ms. */
  timeoutMs: number;
}

/**
 * ToolRunner declarations for a server's tools: `<namespace>.<tool>`, the server's schemas,
 * output schema and annotations. A tool whose name cannot be namespaced or whose input schema
 * cannot be validated is skipped with the reason, so one odd tool never hides the others.
 */
export function declarationsFromTools(tools: readonly Tool[], options: DeclarationOptions): { declarations: ToolDeclaration[]; skipped: SkippedTool[] } {
  const declarations: ToolDeclaration[] = [];
  const skipped: SkippedTool[] = [];
  for (const t of tools) {
    const name = `${options.namespace}.${t.name}`;
    if (!NAMESPACED_TOOL_NAME.test(name)) {
      skipped.push({ name: shortName(t.name), reason: `its name cannot be used as ${quote(name)}: tool names are letters, digits, _, - and ., at most 128 characters with the namespace` });
      continue;
    }
    // A tool that only runs as an MCP task would be listed and always fail: left out, saying why.
    if (t.execution?.taskSupport === 'required') {
      skipped.push({ name: shortName(t.name), reason: 'it runs only as an MCP task (execution.taskSupport "required"), which this client does not run' });
      continue;
    }
    const inputSchema = { ...t.inputSchema, type: 'object' as const };
    try {
      z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (e) {
      skipped.push({ name: shortName(t.name), reason: `its input schema is not usable (${clip((e as Error).message, 500)})` });
      continue;
    }
    const title = t.title ?? t.annotations?.title;
    const annotations = { ...t.annotations, ...(title ? { title } : {}) };
    declarations.push({
      name,
      namespace: options.namespace,
      module: 'McpClient',
      description: t.description?.trim() || title || `${t.name} (a tool of the MCP server ${options.server})`,
      inputSchema,
      pythonCallable: true,
      timeoutMs: options.timeoutMs,
      ...(t.outputSchema ? { outputSchema: { ...t.outputSchema, type: 'object' as const } } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
    });
  }
  return { declarations, skipped };
}

type Content = CallToolResult['content'][number];

/** The text of a result's content blocks, for messages. */
export function contentText(content: readonly Content[]): string {
  return content
    .map((c) => (c.type === 'text' ? c.text : c.type === 'resource' && 'text' in c.resource ? c.resource.text : `[${c.type}]`))
    .join('\n')
    .trim();
}

/**
 * A tool's value from its MCP result: `structuredContent` when the server sent it; else the text
 * when every block is text; else the content blocks themselves (images as `{ type, mimeType,
 * data }`). A result with `isError` throws `MCP_TOOL_ERROR` carrying the server's message.
 */
export function valueFromResult(tool: string, result: CallToolResult): unknown {
  const content = result.content ?? [];
  if (result.isError) {
    throw new ArmatureError('MCP_TOOL_ERROR', `${tool}: ${contentText(content) || 'the server reported an error without a message'}`, {
      hint: 'The MCP server refused or failed the call; read its message, fix the arguments and retry.',
    });
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (content.every((c) => c.type === 'text')) return content.map((c) => (c as { text: string }).text).join('\n');
  return content;
}
