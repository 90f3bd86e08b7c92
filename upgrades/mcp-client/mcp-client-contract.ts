/**
 * The McpClient's contract: its API and what it reports about each server. Apart from the
 * implementation, and free of the MCP SDK's types, so the package's types need no optional peer.
 */
import type { ElicitationDeskApi } from '../../src/contracts/mcp-client-contract.ts';
import type { ErrorInfo } from '../../src/kernel/errors.ts';

/** A tool a server offers that Armature cannot register, and why. */
export interface SkippedTool {
  name: string;
  reason: string;
}

/** Where a server is in its life. */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'stopped';

/** What the McpClient reports about one server (no secrets: env and header values never appear). */
export interface McpServerStatus {
  /** The config's name for the server. */
  name: string;
  /** Its tools are `<namespace>.<tool>`. */
  namespace: string;
  /** Set when several servers share the namespace: the instance id (the server name). */
  instance?: string;
  transport: 'stdio' | 'http';
  /** The command line or URL. */
  target: string;
  state: McpServerState;
  /** The server's own name and version, once it answered. */
  server?: { name: string; version: string; title?: string };
  /** What it offers besides tools (from its capabilities): `resources`, `prompts`, `logging`, `completions`. */
  offers: string[];
  /** Full names of its registered tools. */
  tools: string[];
  /** Tools it offers that could not be registered, with the reason. */
  skipped: SkippedTool[];
  /** Why it is failed (or why it last failed). */
  error?: ErrorInfo;
  /** What to do about the error. */
  hint?: string;
  /** ms since the epoch when it last became ready. */
  readyAt?: number;
  /** How long its last start took, in ms. */
  startMs?: number;
  /** The process id of a running stdio server. */
  pid?: number;
  calls: number;
  errors: number;
  /** Times it was started again after the first time. */
  restarts: number;
}

/** The McpClient API (the upgrade's contract); elicitation as `src/contracts/mcp-client-contract.ts` says. */
export interface McpClientApi extends ElicitationDeskApi {
  /** Every configured server, in config order. */
  listServers(): McpServerStatus[];
  /** One server; throws `UNKNOWN_MCP_SERVER` listing the names. */
  getServer(name: string): McpServerStatus;
  /** Stops and starts a server again; resolves to its status (never rejects for a failed start). */
  restart(name: string): Promise<McpServerStatus>;
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    McpClient: McpClientApi;
  }
}
