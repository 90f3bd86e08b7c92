/**
 * The events of folded journal lines: every transition, whoever wrote it, is told on the bus the
 * same way (`change:*`, payloads copied), so a process hears of decisions made in other processes
 * as it hears of its own. Answers the targets whose version in force another writer changed: this
 * process's kinds must follow them.
 */
import type { ChangeKind } from '../../src/contracts/change-contract.ts';
import type { EventSource } from '../../src/kernel/event-bus.ts';
import { describeRepair } from './change-store.ts';
import type { Transition } from './journal-fold.ts';

/** Emits the events of `transitions`; answers the targets another writer than `me` brought something into force for. */
export function announce(bus: Pick<EventSource, 'emit'>, transitions: readonly Transition[], me: string, location = 'the journal'): { kind: ChangeKind; target: string }[] {
  const follow = new Map<string, { kind: ChangeKind; target: string }>();
  for (const t of transitions) {
    switch (t.type) {
      case 'pending':
      case 'rejected':
        bus.emit(`change:${t.type}`, { change: structuredClone(t.change) });
        break;
      case 'activated':
        if (t.approved) bus.emit('change:approved', { change: structuredClone(t.change) });
        bus.emit('change:activated', { change: structuredClone(t.change) });
        if (t.ended?.status === 'superseded') bus.emit('change:superseded', { change: structuredClone(t.ended.change) });
        else if (t.ended) bus.emit('change:rolled-back', { change: structuredClone(t.ended.change), reason: t.ended.reason });
        if (t.by.instance !== me) follow.set(`${t.change.kind}\u0000${t.change.target}`, { kind: t.change.kind, target: t.change.target });
        break;
      case 'repaired': {
        const repairs = describeRepair({ lines: t.lines, notes: t.notes, when: t.when, ...(t.by.pid ? { pid: t.by.pid } : {}) }, location);
        if (repairs.length) bus.emit('change:repaired', { repairs });
        break;
      }
      case 'counted':
        break;
    }
  }
  return [...follow.values()];
}
