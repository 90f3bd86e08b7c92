import type { ElicitationRequest } from '../../src/contracts/mcp-client-contract.ts';
import type { McpServerStatus } from './server-connection.ts';

/** What the McpClient card shows: each server as `list_mcp_servers` reports it, and what servers ask the person. */
export interface McpClientSnapshot {
  servers: McpServerStatus[];
  /**
   * Elicitation requests waiting for the person (id, server, message, requested schema or url,
   * expiry: what a server sent, nothing of its configuration), answered with `answer_elicitation`.
   */
  elicitations: ElicitationRequest[];
}

/** The McpClient snapshot: plain copies (the command line or URL, never a header or an environment). */
export function mcpClientSnapshot(servers: readonly McpServerStatus[], elicitations: readonly ElicitationRequest[] = []): McpClientSnapshot {
  return { servers: servers.map((s) => JSON.parse(JSON.stringify(s)) as McpServerStatus), elicitations: elicitations.map((r) => JSON.parse(JSON.stringify(r)) as ElicitationRequest) };
}
