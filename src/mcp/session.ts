/**
 * What one MCP session's handlers share: the system, the SDK server, the session's id (its tool
 * calls carry it: its Python runtime, its kept results), its logging level, and the loaded
 * modules' APIs it serves from, resolved structurally.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { Persona } from '../kernel/manifest-schemas.ts';
import type { LanguageModel } from 'ai';
import type { LogLevel } from './log-level.ts';
import type { ResultFiles } from './large-results.ts';
import type { ResourceSources } from './resources.ts';

/** What the MCP server needs from PythonTool, structurally. */
export interface PythonSide {
  /** The system-prompt fragment for `persona`'s allow-list. Default: the booted persona's. */
  getPromptPlan(persona?: Persona): { text: string; mode: string };
  listSkills(): { namespace: string; tools: string[] }[];
  readSkill(namespace: string): string;
}

/** What the MCP server needs from the Workspace, structurally. */
export type WorkspaceSide = NonNullable<ResourceSources['workspace']> & ResultFiles;

/** What `run_agent` needs of the Agent upgrade, structurally. */
export interface AgentSide {
  run(options: { goal: string; maxSteps?: number; signal?: AbortSignal; languageModel?: LanguageModel }): Promise<{
    runId: string;
    reason: string;
    steps: number;
    usage: { inputTokens: number; outputTokens: number };
    answer?: string;
    error?: { code: string; message: string; hint?: string };
  }>;
  getSettings(): { model?: { provider: string; model: string }; hasKey: boolean };
}

/** One session's shared state. */
export interface McpSession {
  sys: ArmatureSystem;
  server: Server;
  /** `mcp-<n>`. */
  id: string;
  log: LogLevel;
  python?: PythonSide;
  workspace?: WorkspaceSide;
  /** The Agent upgrade, when loaded (`run_agent`). */
  agent?: AgentSide;
  /** Results larger than this (bytes of JSON) are linked, not sent. */
  maxResultBytes: number;
}
