/**
 * `armature changes`, `armature approve ID...`, `armature reject ID...`: the changes an agent made
 * to the system, and a person's decision on the pending ones (the command line is a person: the
 * change path accepts approvals from `cli` and `ui` only).
 */
import { oneLine, quote } from '../kernel/bounded.ts';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { CHANGES_ID, type ChangeRecord, type ChangesApi } from '../contracts/change-contract.ts';
import { reportOf, statusLabel, versionLabel } from '../contracts/change-history.ts';
import { describeError } from '../kernel/errors.ts';
import { table, type CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';
import { missingUpgrade } from './needed-upgrade.ts';
import { repairLines } from './safe-mode.ts';

/** Usage lines of the three commands. */
export const CHANGES_USAGE = `  armature changes [--json]                       pending and recent changes agents made (id, kind,
                                                  target, action, version, status, reason)
  armature approve ID... | armature reject ID...  decide pending changes (only a person can)`;

/** How many decided changes `armature changes` lists after the pending ones. */
const RECENT = 20;

/** How many of the store's recorded repairs `armature changes` shows. */
const RECENT_REPAIRS = 5;

/** The commands this file runs. */
export const CHANGES_COMMANDS = ['changes', 'approve', 'reject'] as const;

/** Runs `changes`, `approve` or `reject`; resolves to the exit code. */
export async function runChangesCommand(sys: ArmatureSystem, command: (typeof CHANGES_COMMANDS)[number], ids: string[], json: boolean, io: CliIo): Promise<number> {
  const missing = missingUpgrade(sys, CHANGES_ID, 'keeps the changes');
  if (missing) {
    io.err(`armature: ${missing.message}`);
    return missing.code;
  }
  const changes = await sys.resolve<ChangesApi>(CHANGES_ID);
  if (command === 'changes') {
    if (ids.length) throw new UsageError(`changes takes no arguments, got ${ids.map((i) => quote(i)).join(' ')}`);
    return list(changes, json, io);
  }
  if (!ids.length) throw new UsageError(`${command} needs the id of at least one change: armature ${command} ID... (armature changes lists them)`);
  let failed = 0;
  const done: ChangeRecord[] = [];
  for (const id of ids) {
    try {
      const r = command === 'approve' ? await changes.approve(id, { caller: 'cli' }) : await changes.reject(id, { caller: 'cli' });
      done.push(r);
      if (command === 'approve' && r.status !== 'active') failed++;
      if (!json) io.out(command === 'approve' && r.status !== 'active' ? `${id}: approved, but ${reportOf(r) ?? `it is ${r.status}`}` : `${id}: ${command === 'approve' ? 'approved' : 'rejected'} — ${describe(r)} is ${r.status}`);
    } catch (e) {
      failed++;
      io.err(`armature: ${id}: ${describeError(e)}${(e as { hint?: string }).hint ? `\nhint: ${(e as { hint?: string }).hint}` : ''}`);
    }
  }
  if (json) io.out(JSON.stringify(done, null, 2));
  return failed ? 1 : 0;
}

function list(changes: ChangesApi, json: boolean, io: CliIo): number {
  const all = changes.list();
  const pending = all.filter((r) => r.status === 'pending').reverse();
  const recent = all.filter((r) => r.status !== 'pending').slice(0, RECENT);
  if (json) {
    io.out(JSON.stringify([...pending, ...recent], null, 2));
    return 0;
  }
  for (const line of repairLines(changes.repairs().slice(-RECENT_REPAIRS), 'The change store found damaged lines, skipped them and recorded so (the most recent)')) io.out(line);
  if (!all.length) {
    io.out('No changes yet: when an agent makes a tool, a blueprint, an upgrade or changes its persona (create_tool, create_blueprint, create_upgrade, update_persona), it is listed here.');
    return 0;
  }
  const rows = [...pending, ...recent].map((r) => [r.id, r.kind, r.target, r.action, versionLabel(r), statusLabel(r), when(r), oneLine(r.reason) || '-']);
  io.out(table(['id', 'kind', 'target', 'action', 'version', 'status', 'when', 'reason'], rows));
  for (const f of changes.loadFailures()) io.out(`\n${f.change.target} v${f.change.version} (${f.change.id}) could not be loaded at boot and was skipped: ${f.error.message}`);

  io.out(
    pending.length
      ? `\n${pending.length} pending: armature approve ${pending.map((r) => r.id).join(' ')} (or armature reject ID)`
      : `\nNothing pending. ${all.length > pending.length + recent.length ? `${all.length - recent.length} older changes not shown (--json for the ${RECENT} most recent).` : ''}`.trimEnd(),
  );
  return 0;
}

function describe(r: ChangeRecord): string {
  return `${r.kind} ${r.target}${r.version === null ? '' : ` version ${r.version}`}`;
}

function when(r: ChangeRecord): string {
  return new Date(r.activatedAt ?? r.decidedAt ?? r.at).toISOString().slice(0, 16).replace('T', ' ');
}
