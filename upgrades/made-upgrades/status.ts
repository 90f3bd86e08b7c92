/**
 * What an agent-made upgrade shows on its widget: it reports it with `ctx.status(update)` and the
 * trusted `<made-upgrade-widget>` renders it as text — a state, a primary and a secondary metric, a
 * message, a small table, recent log lines and buttons that call its own tools. Updates are
 * validated and bounded here; nothing in them is ever HTML.
 */
import * as z from 'zod';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';

/** How many log lines a widget keeps. */
export const MAX_LOG_LINES = 50;

const cell = z.union([z.string().max(200), z.number(), z.boolean(), z.null()]);
const line = z.string().max(500);

/** One `ctx.status(update)`: every field optional; `log` lines are appended, the rest replaced. */
export const StatusUpdateSchema = z.strictObject({
  state: z.enum(['idle', 'active', 'warning', 'error']).optional(),
  primary: z.string().max(120).optional(),
  secondary: z.string().max(200).optional(),
  message: z.string().max(1000).optional(),
  table: z.strictObject({ columns: z.array(z.string().max(60)).min(1).max(8), rows: z.array(z.array(cell).max(8)).max(20) }).nullable().optional(),
  log: z.union([line, z.array(line).max(20)]).optional(),
  buttons: z.array(z.strictObject({ label: z.string().min(1).max(40), tool: z.string().min(1).max(130), args: z.record(z.string(), z.unknown()).optional() })).max(6).optional(),
});

/** One status update, as an upgrade sends it. */
export type StatusUpdate = z.infer<typeof StatusUpdateSchema>;

/** What an upgrade's widget shows now. */
export interface UpgradeStatus {
  state: 'idle' | 'active' | 'warning' | 'error';
  primary: string;
  secondary: string;
  message?: string;
  table?: { columns: string[]; rows: (string | number | boolean | null)[][] };
  /** Oldest first, at most {@link MAX_LOG_LINES}. */
  log: { at: number; text: string }[];
  buttons: { label: string; tool: string; args?: Record<string, unknown> }[];
  /** When it last changed, ms since the epoch. */
  updatedAt?: number;
}

/** The status an upgrade starts with. */
export function initialStatus(): UpgradeStatus {
  return { state: 'idle', primary: '', secondary: '', log: [], buttons: [] };
}

/**
 * `status` with `update` applied (a new object). Throws `INVALID_STATUS` naming each problem — an
 * unknown field, a value too long, a button for a tool it does not have (`tools` are its local
 * tool names).
 */
export function applyStatus(status: UpgradeStatus, update: unknown, tools: readonly string[], now = Date.now()): UpgradeStatus {
  const r = StatusUpdateSchema.safeParse(update);
  if (!r.success) {
    const issues = r.error.issues.slice(0, 5).map((i) => `${formatJsonPath(i.path)}: ${i.message}`);
    throw new ArmatureError('INVALID_STATUS', `[made-upgrades] ctx.status: ${issues.join('; ')}`, {
      hint: 'ctx.status({ state?, primary?, secondary?, message?, table?: { columns, rows }, log?, buttons?: [{ label, tool, args? }] }): plain text, small.',
    });
  }
  const u = r.data;
  for (const b of u.buttons ?? []) {
    if (!tools.includes(b.tool)) throw new ArmatureError('INVALID_STATUS', `[made-upgrades] ctx.status: button "${b.label}" calls ${JSON.stringify(b.tool)}, which is not one of its tools (${tools.join(', ') || 'none'})`, { hint: 'A button calls one of the upgrade\'s own tools, by its name.' });
  }
  const next: UpgradeStatus = { ...status, log: status.log, updatedAt: now };
  if (u.state !== undefined) next.state = u.state;
  if (u.primary !== undefined) next.primary = u.primary;
  if (u.secondary !== undefined) next.secondary = u.secondary;
  if (u.message !== undefined) {
    if (u.message) next.message = u.message;
    else delete next.message;
  }
  if (u.table === null) delete next.table;
  else if (u.table) next.table = u.table;
  if (u.buttons) next.buttons = u.buttons;
  if (u.log !== undefined) next.log = appendLog(status.log, Array.isArray(u.log) ? u.log : [u.log], now);
  return next;
}

/** `log` with `lines` appended, the oldest dropped past {@link MAX_LOG_LINES}. */
export function appendLog(log: readonly UpgradeStatus['log'][number][], lines: readonly string[], now = Date.now()): UpgradeStatus['log'] {
  return [...log, ...lines.map((text) => ({ at: now, text: text.slice(0, 500) }))].slice(-MAX_LOG_LINES);
}
