/**
 * The system events an agent-made upgrade hears with `ctx.on(name, handler)`: facts about the
 * workspace, modules, tools and changes, and the events other agent-made upgrades declared — each
 * cut down to fields that carry nothing private. Never delivered: agent runs (goals, answers),
 * Python output (another run's data), tool arguments and error messages, widget activity, the
 * upgrade's own events and its own tool calls (a handler reacting to itself would loop).
 */
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import type { ArmatureEvents, ArmatureEventType } from '../../src/kernel/events.ts';

/** What upgrade `self` is delivered of `record`, or `undefined` when it hears nothing of it. */
export function publicEvent(record: AnyEventRecord, self: string): { name: string; payload: unknown } | undefined {
  if ('declared' in record) return record.owner === self ? undefined : { name: record.type, payload: record.payload };
  const name = record.type;
  const payload = <K extends ArmatureEventType>(_k: K) => record.payload as ArmatureEvents[K];
  switch (name) {
    case 'workspace:written': {
      const { path, size, mtime } = payload(name);
      return { name, payload: { path, size, mtime } };
    }
    case 'workspace:deleted':
      return { name, payload: { path: payload(name).path } };
    case 'module:loaded':
    case 'module:disposed':
    case 'module:failed': {
      const p = record.payload as { id: string; parent?: string; version?: string; error?: { code: string } };
      return { name, payload: { id: p.id, ...(p.parent ? { parent: p.parent } : {}), ...(p.version ? { version: p.version } : {}), ...(p.error ? { code: p.error.code } : {}) } };
    }
    case 'tool:registered':
    case 'tool:unregistered':
      return { name, payload: { module: payload(name).module, names: payload(name).names } };
    case 'tool:finished': {
      const { name: tool, caller, ok, durationMs, error } = payload(name);
      if (caller === `upgrade:${self}`) return undefined;
      return { name, payload: { name: tool, caller, ok, durationMs, ...(error ? { code: error.code } : {}) } };
    }
    case 'system:booted': {
      const { persona, loaded, failed } = payload(name);
      return { name, payload: { persona, loaded, failed } };
    }
    case 'change:activated':
    case 'change:rolled-back': {
      const c = (record.payload as ArmatureEvents['change:activated']).change;
      return { name, payload: { kind: c.kind, target: c.target, version: c.version, change: c.id } };
    }
    default:
      return undefined;
  }
}
