import type { McpServerStatus } from './server-connection.ts';

/** What the McpClient card shows: each server as `list_mcp_servers` reports it. */
export interface McpClientSnapshot {
  servers: McpServerStatus[];
}

/** The McpClient snapshot of `servers`: plain copies (the command line or URL, never a header or an environment). */
export function mcpClientSnapshot(servers: readonly McpServerStatus[]): McpClientSnapshot {
  return { servers: servers.map((s) => JSON.parse(JSON.stringify(s)) as McpServerStatus) };
}
