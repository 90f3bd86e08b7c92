/**
 * MCP server configuration, in the format MCP clients already use (Claude Desktop, Claude Code,
 * Cursor): `{ "mcpServers": { "<name>": { "command", "args"?, "env"? } | { "url", "headers"? } } }`.
 * A persona lists servers under `mcpServers`; every CLI command takes `--mcp-config FILE`.
 *
 * Each server's tools are registered as `<namespace>.<tool>`; the namespace is the server name in
 * snake_case (`github-issues` → `github_issues`) unless the entry sets `namespace`. Entries that
 * share a namespace are instances of one kind of server: their tools are registered once per
 * entry, with the entry's name as the instance id (`instance_id="work"` from Python).
 */
import * as z from 'zod';

/** Server names: letters, digits, `_` and `-`, starting with a letter (they name Python modules). */
export const MCP_SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Namespaces of dynamically registered tools: snake_case, usable as a Python module name. */
export const TOOL_NAMESPACE = /^[a-z][a-z0-9_]*$/;

const common = {
  namespace: z.string().regex(TOOL_NAMESPACE, 'a namespace in snake_case, e.g. "memory"').optional().describe('Namespace of its tools (`<namespace>.<tool>`, `from tools.<namespace> import ...`); entries sharing one are instances of one kind of server. Default: the server name in snake_case.'),
  startTimeoutMs: z.number().int().positive().optional().describe('How long it may take to start and list its tools, in ms. Default: the McpClient\'s (30000).'),
  disabled: z.boolean().optional().describe('Other clients\' switch to leave a server out; honoured. Default: false.'),
  autoApprove: z.array(z.string()).optional().describe('Other clients\' per-tool approval list: accepted and ignored (the persona\'s allow-list decides).'),
  alwaysAllow: z.array(z.string()).optional().describe('As `autoApprove`.'),
};

/** A server Armature starts as a child process and speaks to over stdio (Node only). */
export const McpStdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional().describe('stdio: Armature starts it as a child process (Node only).'),
  command: z.string().min(1, 'the program to start, e.g. "npx" or "node"').describe('The program to start, e.g. "npx" or "node".'),
  args: z.array(z.string()).default([]).describe('Its arguments.'),
  env: z.record(z.string(), z.string()).default({}).describe('Added to a minimal safe environment (PATH, HOME, ...): the parent\'s secrets are not passed on; values never appear in events, errors or widgets.'),
  cwd: z.string().optional().describe('Its working directory. Default: the current one.'),
  ...common,
});

/** A server reached over streamable HTTP (Node and browsers; browsers need the server to allow CORS). */
export const McpHttpServerSchema = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse']).optional().describe('The transport: streamable HTTP, or `sse` for servers of the older SSE transport. Default: streamable HTTP.'),
  url: z.url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. "http://127.0.0.1:3001/mcp"' }).describe('The server\'s URL, e.g. "http://127.0.0.1:3001/mcp" (a browser needs the server to allow its origin).'),
  headers: z.record(z.string(), z.string()).default({}).describe('Sent with every request (e.g. Authorization); never shown in events, errors or widgets.'),
  ...common,
});

/** One entry of `mcpServers`. */
export const McpServerSpecSchema = z.union([McpStdioServerSchema, McpHttpServerSchema], {
  error: 'a server is either { "command", "args"?, "env"? } (stdio) or { "url", "headers"? } (HTTP)',
});

/** The `mcpServers` map: server name → entry. */
export const McpServersSchema = z.record(z.string().regex(MCP_SERVER_NAME), McpServerSpecSchema, {
  error: (issue) => (issue.code === 'invalid_key' ? 'a server name: letters, digits, _ and -, starting with a letter, at most 64' : undefined),
});

/** An `--mcp-config` file. */
export const McpConfigFileSchema = z.looseObject({ mcpServers: McpServersSchema });

export type McpStdioServer = z.infer<typeof McpStdioServerSchema>;
export type McpHttpServer = z.infer<typeof McpHttpServerSchema>;
export type McpServerSpec = z.infer<typeof McpServerSpecSchema>;
export type McpServers = z.infer<typeof McpServersSchema>;
/** `mcpServers` as written (defaults not yet applied), e.g. in `boot({ config: { McpClient: { servers } } })`. */
export type McpServersInput = z.input<typeof McpServersSchema>;

/** The namespace a server's tools get: its `namespace`, else its name in snake_case. */
export function namespaceOfServer(name: string, spec: Pick<McpServerSpec, 'namespace'>): string {
  return spec.namespace ?? name.replace(/-/g, '_').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}
