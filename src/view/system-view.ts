/**
 * What a widget sees of a system: the same interface whether the system booted in this page
 * (`localView`) or in a Node process behind the dashboard server (`remoteView`). No DOM, no Node
 * imports: it runs in the page and in tests.
 */
import type { EventSource } from '../kernel/event-bus.ts';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import type { ToolDeclaration } from '../kernel/manifest-schemas.ts';
import type { ToolResult } from '../kernel/tool-contract.ts';
import type { ProcessInfo } from '../contracts/process-contract.ts';

/** A system as widgets see it. */
export interface SystemView {
  /** The persona in force and whether it booted in safe mode. */
  readonly persona: { id: string; name: string; safe: boolean };
  /** Events as the bus delivers them, with the bounded recent history (replayed on connect when remote). */
  readonly events: Pick<EventSource, 'on' | 'onAny' | 'onDeclared' | 'history'>;
  /** Module reports, kept current (module:* events). */
  modules(): readonly ModuleReport[];
  /** The latest status snapshot of a module, or undefined before its first one. */
  status<T = unknown>(moduleId: string): T | undefined;
  /** The tools a person may call here, with their declarations. */
  tools(): readonly ToolDeclaration[];
  /** Calls a tool as the person at this page: caller 'ui'. Never throws: a ToolResult. */
  callTool<T = unknown>(name: string, args?: Record<string, unknown>, options?: { session?: string; timeoutMs?: number; signal?: AbortSignal }): Promise<ToolResult<T>>;
  /** The processes on the data folder (attached); `[]` in page mode. */
  processes(): readonly ProcessInfo[];
  /** Which system this is: 'page' (booted in this tab) or 'attached' (a Node system behind a server). */
  readonly mode: 'page' | 'attached';
}
