/**
 * The events the McpClient adds to the system's typed map, declared here by module augmentation
 * (not in the kernel's file) and listed in its `modules/upgrades.json` entry and metadata. Every
 * text from a server in them is bounded and has the server's configured secrets redacted.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationOutcome, ElicitationRequest } from './elicitation.ts';

declare module '../../src/kernel/events.ts' {
  interface ArmatureEvents {
    /** An MCP server sent a log message (`notifications/message`); `data` as text, at most 4,000 characters. */
    'mcp-client:log': { server: string; level: LoggingLevel; logger?: string; data: string };
    /** A call to an MCP server's tool reported progress (which also kept its timeout from running out). */
    'mcp-client:progress': { server: string; tool: string; progress: number; total?: number; message?: string };
    /** An MCP server asks the person for input; a responder (the terminal, the dashboard) answers it. */
    'mcp-client:elicitation-requested': { request: ElicitationRequest };
    /** An elicitation ended: the person's answer, a timeout, or a refusal because nobody could answer. */
    'mcp-client:elicitation-ended': { id: string; server: string; outcome: ElicitationOutcome };
    /** An MCP server's sampling request was answered with the persona's model, or refused (`error`). */
    'mcp-client:sampled': { server: string; ok: boolean; requests: number; maxRequests: number; model?: string; error?: string };
  }
}

/** The names, as the manifest lists them. */
export const MCP_CLIENT_EVENTS = ['mcp-client:log', 'mcp-client:progress', 'mcp-client:elicitation-requested', 'mcp-client:elicitation-ended', 'mcp-client:sampled'] as const;
