import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { SystemView } from './system-view.ts';

/**
 * The view of a system booted in this page (or process): events are its bus, snapshots are read
 * from its modules as asked, and every call goes through its ToolRunner as the caller `ui`, so a
 * person's tools (`audience: "person"`) answer and the persona's allow-list applies to the rest.
 */
export function localView(system: ArmatureSystem): SystemView {
  return {
    persona: { id: system.persona.id, name: system.persona.name, safe: system.safe },
    events: system.bus,
    modules: () => system.modules,
    status: <T>(id: string) => system.status(id) as T | undefined,
    tools: () => system.tools.getToolDeclarations({ audience: 'person' }),
    callTool: (name, args = {}, options = {}) =>
      system.tools.executeTool(name, args, {
        caller: 'ui',
        ...(options.session === undefined ? {} : { session: options.session }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.callId === undefined ? {} : { callId: options.callId }),
      }),
    processes: () => [],
    // The page's own events go on the system's bus: in the page, the page and the system are one.
    emitLocal: (type, payload) => system.bus.emit(type, payload),
    mode: 'page',
  };
}
