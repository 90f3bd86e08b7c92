/**
 * The Changes upgrade's tools: a person's decisions (`approve_change`, `reject_change`,
 * `rollback_change`, `retire_change`) and the paged list a monitoring card reads
 * (`list_changes`, `read_change`). All are declared `audience: "person"`: the ToolRunner runs them
 * only for the dashboard (`ui`) and the command line (`cli`), and no agent, MCP client or Python
 * is ever offered them. The change path refuses an agent's approval on its own as well.
 */
import { quote } from '../../../src/kernel/bounded.ts';
import { CHANGE_KINDS, type ChangeKind, type ChangePresentation, type ChangeRecord, type ChangesApi, type ChangeStatus } from '../../../src/contracts/change-contract.ts';
import { ArmatureError } from '../../../src/kernel/errors.ts';
import type { ToolCallContext, ToolHandler } from '../../../src/kernel/upgrade.ts';

/** What a person may do with a change now, as the dashboard offers it. */
export type ChangeAction = 'approve' | 'reject' | 'rollback' | 'retire';

/**
 * One change of `list_changes`: its record and the decisions a person may take on it; with
 * `present`, what its version shows and the version it was proposed over (`read_change`'s).
 */
export type ListedChange = ChangeRecord & { actions: ChangeAction[]; current?: ChangePresentation; previous?: ChangePresentation };

/** Changes per page of `list_changes`. Default: 20. */
export const DEFAULT_PAGE = 20;
/** The largest page of `list_changes`. */
export const MAX_PAGE = 100;

/** The decisions a person may take on `r`, given every record of its target (newest first). */
export function actionsOf(r: ChangeRecord, history: readonly ChangeRecord[], inForce: ChangeRecord | undefined): ChangeAction[] {
  if (r.status === 'pending') return ['approve', 'reject'];
  // The version in force can be taken out: the undo of a first version, which has none to roll back to.
  if (r.status === 'active') return r.hash !== null ? ['retire'] : [];
  if ((r.status !== 'superseded' && r.status !== 'rolled-back') || r.version === null || inForce?.version === r.version) return [];
  // One button per earlier version: on its newest record.
  const newest = history.find((h) => h.version === r.version);
  return newest === r ? ['rollback'] : [];
}

/** A `list_changes` cursor: the id of the last change of the page before. */
const cursorOf = (id: string) => `after:${id}`;

/** The change id a cursor points after; throws `INVALID_CURSOR`. */
function afterOf(cursor: unknown, all: readonly ChangeRecord[]): number {
  const id = typeof cursor === 'string' && cursor.startsWith('after:') ? cursor.slice(6) : undefined;
  const at = id === undefined ? -1 : all.findIndex((r) => r.id === id);
  if (at < 0) throw new ArmatureError('INVALID_CURSOR', `[list_changes] ${quote(cursor)} is not a cursor list_changes gave`, { hint: 'Pass the next_cursor of the page before, or leave cursor out for the newest changes.' });
  return at;
}

/** Options of {@link listChanges}. */
export interface ListChangesArgs {
  status?: ChangeStatus;
  kind?: ChangeKind;
  persona?: string;
  process?: string;
  cursor?: string;
  limit?: number;
  /** Each item with its presentation (code, and the version before). Default: false. */
  present?: boolean;
}

/**
 * One page of changes, newest first, matching every filter given; `next_cursor` when more follow.
 * Records are never removed, so a cursor stays valid while new changes arrive at the front.
 */
export function listChanges(changes: ChangesApi, args: ListChangesArgs): { items: ListedChange[]; next_cursor?: string } {
  const limit = Math.min(MAX_PAGE, Math.max(1, args.limit ?? DEFAULT_PAGE));
  const all = changes.list();
  const from = args.cursor === undefined ? 0 : afterOf(args.cursor, all) + 1;
  const matches = (r: ChangeRecord) =>
    (!args.status || r.status === args.status) &&
    (!args.kind || r.kind === args.kind) &&
    (!args.persona || r.caller.persona === args.persona) &&
    (!args.process || r.caller.process === args.process);
  const page: ChangeRecord[] = [];
  let i = from;
  for (; i < all.length && page.length < limit; i++) if (matches(all[i]!)) page.push(all[i]!);
  const more = page.length === limit && all.slice(i).some(matches);
  const items = page.map((r): ListedChange => {
    const item: ListedChange = { ...r, actions: actionsOf(r, changes.list({ kind: r.kind, target: r.target }), changes.active(r.kind, r.target)) };
    if (!args.present) return item;
    const shown = changes.present(r.id);
    return { ...item, ...(shown?.current ? { current: shown.current } : {}), ...(shown?.previous ? { previous: shown.previous } : {}) };
  });
  return more ? { items, next_cursor: cursorOf(page.at(-1)!.id) } : { items };
}

/** The change `id`, or `CHANGE_NOT_FOUND` naming it. */
function existing(changes: ChangesApi, id: unknown): ChangeRecord {
  const r = typeof id === 'string' ? changes.get(id) : undefined;
  if (r) return r;
  throw new ArmatureError('CHANGE_NOT_FOUND', `[changes] no change ${quote(id)}`, { hint: 'List the changes with armature changes (or list_changes).' });
}

function kindOf(kind: unknown): ChangeKind {
  if (CHANGE_KINDS.includes(kind as ChangeKind)) return kind as ChangeKind;
  throw new ArmatureError('INVALID_KIND', `[changes] ${quote(kind)} is not a kind of change`, { hint: `One of: ${CHANGE_KINDS.join(', ')}.` });
}

/** The Changes upgrade's tool handlers, by tool name. */
export function changeTools(changes: ChangesApi): Record<string, ToolHandler> {
  /** The decision's options; a button on the dashboard says where it was pressed when no reason is given. */
  const opts = (args: Record<string, unknown>, call: ToolCallContext, done: string) => {
    const reason = typeof args.reason === 'string' && args.reason.trim() ? args.reason : call.caller === 'ui' ? `${done} on the dashboard` : undefined;
    return { caller: call.caller, callId: call.callId, ...(reason ? { reason } : {}) };
  };
  return {
    approve_change: (args, call) => changes.approve(String(args.id), { caller: call.caller }),
    reject_change: (args, call) => changes.reject(String(args.id), opts(args, call, 'rejected')),
    rollback_change: (args, call) => changes.rollback(kindOf(args.kind), String(args.target), args.version as number, opts(args, call, 'rolled back')),
    retire_change: (args, call) => changes.retire(kindOf(args.kind), String(args.target), opts(args, call, 'retired')),
    list_changes: (args) => listChanges(changes, args as ListChangesArgs),
    read_change: (args) => {
      const shown = changes.present(existing(changes, args.id).id)!;
      return { ...shown, actions: actionsOf(shown.change, changes.list({ kind: shown.change.kind, target: shown.change.target }), changes.active(shown.change.kind, shown.change.target)) };
    },
  };
}
