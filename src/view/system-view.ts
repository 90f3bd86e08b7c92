/**
 * A system as the dashboard sees it: what its widgets render (module reports, status snapshots,
 * events) and the one way they act (tool calls, as the person at the page). The same widgets work
 * on a system booted in this tab (`localView`) and on one in another process behind a server
 * (`remoteView`): neither leaks through this interface. No DOM and no Node imports here: it runs
 * in the page and in tests.
 */
import type { EventSource } from '../kernel/event-bus.ts';
import type { ArmatureEvents } from '../kernel/events.ts';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import type { ToolDeclaration } from '../kernel/manifest-schemas.ts';
import type { ToolResult } from '../kernel/tool-contract.ts';
import type { ProcessInfo } from '../contracts/process-contract.ts';

export type { ProcessInfo, ProcessEndReason } from '../contracts/process-contract.ts';

/** The events about the page itself: emitted on the page's side only (`SystemView.emitLocal`), never sent to a system. */
export type PageEventType = 'widget:mounted' | 'widget:unmounted' | 'widget:action';

/** Options of {@link SystemView.callTool}. */
export interface ViewCallOptions {
  /** The session the call belongs to (a console's). Default: none (the shared session). */
  session?: string;
  /** Default: the tool's own, else the ToolRunner's (30 s). */
  timeoutMs?: number;
  /** Cancels the call: it answers `CANCELLED` at once. */
  signal?: AbortSignal;
  /**
   * The call's id in the system's events (the run id of an `execute_python`, so a console follows
   * its own output). Default: one the system makes.
   */
  callId?: string;
}

/** A system as its dashboard sees it. */
export interface SystemView {
  /** The persona in force and whether it booted in safe mode. */
  readonly persona: { id: string; name: string; safe: boolean };
  /**
   * Events as the bus delivers them, with the bounded recent history (replayed on connect when
   * remote). A record from another process of the data folder carries `process`.
   */
  readonly events: Pick<EventSource, 'on' | 'onAny' | 'onDeclared' | 'history'>;
  /** Module reports (parts included, each after its upgrade), kept current from `module:*` events. */
  modules(): readonly ModuleReport[];
  /** The latest status snapshot of a module (or a part with a card of its own), or undefined before its first one. */
  status<T = unknown>(moduleId: string): T | undefined;
  /** The tools a person may call here, with their declarations (person-only ones included). */
  tools(): readonly ToolDeclaration[];
  /** Calls a tool as the person at this page: caller `ui`. Never throws: a ToolResult. */
  callTool<T = unknown>(name: string, args?: Record<string, unknown>, options?: ViewCallOptions): Promise<ToolResult<T>>;
  /**
   * The processes on the data folder, ended ones included, the viewed system's own
   * ({@link process}) among them; `[]` for a system in the page.
   */
  processes(): readonly ProcessInfo[];
  /**
   * The process of the system this view shows — the dashboard server's own when attached (its
   * events carry no `process`); undefined for a system in the page. Default: undefined.
   */
  readonly process?: ProcessInfo;
  /**
   * Emits an event about the page (`widget:*`) to this page's listeners of `events`; it never
   * reaches a system in another process.
   */
  emitLocal<K extends PageEventType>(type: K, payload: ArmatureEvents[K]): void;
  /** Which system this is: `page` (booted in this tab) or `attached` (a Node system behind a server). */
  readonly mode: 'page' | 'attached';
}
