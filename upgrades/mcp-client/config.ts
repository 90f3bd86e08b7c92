/** The McpClient's options (`boot({ config: { McpClient: {...} } })`), checked at boot. */
import * as z from 'zod';
import { timeoutOption } from '../../src/kernel/config-schema.ts';
import type { McpServersInput } from '../../src/kernel/mcp-servers.ts';

export const McpClientConfigSchema = z.strictObject({
  // Checked in full by the McpClient itself (McpServersSchema), which names each entry's problem.
  servers: z
    .custom<McpServersInput>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), { error: 'an object of { "<name>": { "command", "args"?, "env"? } | { "url", "headers"? } }' })
    .optional()
    .meta({ description: 'MCP servers to start besides the persona\'s mcpServers, by name (what --mcp-config passes; docs/manifests.md describes an entry). Default: none.', 'x-type': '{ [name]: MCP server entry }' }),
  startTimeoutMs: timeoutOption('How long a server may take to start and list its tools, in ms. Default: 30000.'),
  callTimeoutMs: timeoutOption('Time limit of one call of a server\'s tool, in ms, started again by each progress notification the server sends. Default: 60000.'),
  maxCallTimeoutMs: timeoutOption('Most time one call may take however often its server reports progress, in ms. Default: 600000.'),
  elicitationTimeoutMs: timeoutOption('How long the person has to answer a server\'s elicitation request before it is cancelled, in ms. Default: 300000.'),
});

/** The McpClient's options. */
export type McpClientConfig = z.input<typeof McpClientConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    McpClient: McpClientConfig;
  }
}
