/**
 * What `armature boot` says about agent-made changes: what the change store repaired as this
 * process opened it; in safe mode (`--safe`), the changes in force that were not loaded, for a
 * person to review; otherwise the persona overlay in force, if any.
 */
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import { oneLine } from '../kernel/bounded.ts';
import { CHANGES_ID, type ChangesApi, type StoreRepair } from '../contracts/change-contract.ts';

/** Lines to print after the module table (none when there is nothing to say). */
export async function agentChangeLines(sys: ArmatureSystem): Promise<string[]> {
  if (!sys.modules.some((m) => m.id === CHANGES_ID && m.state === 'loaded')) return sys.safe ? ['\nSafe mode: only what the persona file names was loaded.'] : [];
  const changes = await sys.resolve<ChangesApi>(CHANGES_ID);
  const repaired = repairLines(changes.repairs().filter((r) => r.pid === process.pid), 'The change store repaired, as this process opened it');
  return [...repaired, ...(await changeLines(sys, changes))];
}

/** Lines on `chosen` repairs of the change store, under `title` (none when there are none). */
export function repairLines(chosen: readonly StoreRepair[], title: string): string[] {
  if (!chosen.length) return [];
  return [`\n${title}:`, ...chosen.map((r) => `  ${new Date(r.at).toISOString().slice(0, 19).replace('T', ' ')}  ${oneLine(r.what, 400)}`)];
}

async function changeLines(sys: ArmatureSystem, changes: ChangesApi): Promise<string[]> {
  const inForce = changes.list({ status: 'active' }).filter((r) => r.version !== null);
  if (sys.safe) {
    if (!inForce.length) return ['\nSafe mode: only what the persona file names was loaded; no agent-made change is in force.'];
    return [
      `\nSafe mode: only what modules/personas/${sys.persona.id}.json names was loaded. Agent-made changes in force, not loaded, for review:`,
      ...inForce.map((r) => `  ${r.id}  ${r.kind} ${r.target} v${r.version}${r.reason ? ` — ${oneLine(r.reason)}` : ''}`),
      'Take one out with armature call rollback_upgrade / retire_upgrade / retire_tool ... --safe, or see them all with armature changes.',
    ];
  }
  const overlay = changes.active('persona', sys.persona.id);
  if (!overlay || overlay.version === null) return [];
  const c = changes.content(overlay) as { add_upgrades?: string[]; add_tools?: string[]; remove_tools?: string[] } | undefined;
  const parts = [
    c?.add_upgrades?.length ? `runs ${c.add_upgrades.join(', ')}` : '',
    c?.add_tools?.length ? `allows ${c.add_tools.join(', ')}` : '',
    c?.remove_tools?.length ? `denies ${c.remove_tools.join(', ')}` : '',
  ].filter(Boolean);
  return [`\nPersona overlay v${overlay.version} (${overlay.id}, made by an agent): ${parts.join('; ') || 'empty'}. armature boot --safe boots without it.`];
}
