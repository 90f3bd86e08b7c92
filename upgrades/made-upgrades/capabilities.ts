/**
 * The `ctx` an agent-made upgrade gets in its confined worker: the only things it can reach.
 * `call_tool` (through the ToolRunner, within its creator's allow-list and the persona's),
 * `emit` (its declared events only, validated, at a bounded rate), `status` (its widget), and its
 * private storage (`storage_read`, `storage_write`, `storage_list`, `storage_delete`). `ctx.on` is
 * the worker's own: the host delivers the public events to it.
 */
import { quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { Capability } from '../../src/sandbox/index.ts';
import type { UpgradeStorage } from './storage.ts';

/** A budget of actions per second (a token bucket, timer-free): `rate` a second, bursts up to `rate`. */
export class RateBudget {
  private tokens: number;
  private last: number;

  constructor(private readonly rate: number, private readonly now: () => number = () => performance.now()) {
    this.tokens = rate;
    this.last = now();
  }

  /** Takes one action's worth; false when the budget is spent. */
  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.rate, this.tokens + ((t - this.last) / 1000) * this.rate);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Options of {@link upgradeCapabilities}. */
export interface CapabilityOptions {
  /** The upgrade's id. */
  id: string;
  /** A tool call on the upgrade's behalf (allow-lists checked by the caller of this function). */
  callTool(name: string, args: unknown): Promise<unknown>;
  /** Emits one declared event (full name); throws when undeclared or invalid. */
  emit(name: string, payload: unknown): void;
  /** Applies one status update; throws when invalid. */
  status(update: unknown): void;
  storage: UpgradeStorage;
  /** Events and status updates allowed per second, each. */
  rate: number;
}

/** The capabilities of one worker. */
export function upgradeCapabilities(o: CapabilityOptions): Record<string, Capability> {
  const events = new RateBudget(o.rate);
  const statuses = new RateBudget(o.rate);
  const tooFast = (what: string) =>
    new ArmatureError('RATE_LIMITED', `[made-upgrades] ${o.id} sent more than ${o.rate} ${what} a second`, { hint: `Send fewer: batch them, or send a summary every so often.` });
  return {
    call_tool: (name, args) => {
      if (typeof name !== 'string') throw new ArmatureError('INVALID_TOOL_NAME', `call_tool needs a tool name (a string), got ${quote(name)}`);
      return o.callTool(name, args ?? {});
    },
    emit: (name, payload) => {
      if (typeof name !== 'string') throw new ArmatureError('UNDECLARED_EVENT', `ctx.emit needs an event name (a string), got ${quote(name)}`);
      if (!events.take()) throw tooFast('events');
      o.emit(name.includes(':') ? name : `${o.id}:${name}`, payload);
      return true;
    },
    status: (update) => {
      if (!statuses.take()) throw tooFast('status updates');
      o.status(update);
      return true;
    },
    storage_read: (path) => o.storage.read(path),
    storage_write: (path, text) => o.storage.write(path, text),
    storage_list: (prefix) => o.storage.list(prefix),
    storage_delete: (path) => o.storage.delete(path),
  };
}
