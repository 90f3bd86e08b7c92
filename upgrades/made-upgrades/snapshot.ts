import type { LiveUpgradeInfo } from './upgrade-kind.ts';
import type { UpgradeStatus } from './status.ts';
import { fullToolName } from './upgrade-spec.ts';

/** Most upgrades the snapshot lists. */
const MAX_UPGRADES = 200;

/** What the MadeUpgrades card shows: each agent-made upgrade in force. */
export interface MadeUpgradesSnapshot {
  upgrades: LiveUpgradeInfo[];
  /** Upgrades in force, listed or not. */
  total: number;
}

/**
 * What the card of one running agent-made upgrade shows (the part `upgrade:<id>`): what it
 * reported with `ctx.status`, each button naming the full tool it calls (`<id>.<tool>`), which the
 * card calls as the person.
 */
export type MadeUpgradeCardSnapshot = Omit<UpgradeStatus, 'buttons'> & { buttons: { label: string; tool: string; args?: Record<string, unknown> }[] };

/** The MadeUpgrades snapshot of `live`. */
export function madeUpgradesSnapshot(live: readonly LiveUpgradeInfo[]): MadeUpgradesSnapshot {
  return { upgrades: live.slice(0, MAX_UPGRADES).map((u) => ({ ...u })), total: live.length };
}

/** The card snapshot of upgrade `id` from its `status`. */
export function upgradeCardSnapshot(id: string, status: UpgradeStatus): MadeUpgradeCardSnapshot {
  return { ...status, buttons: status.buttons.map((b) => ({ label: b.label, tool: fullToolName(id, b.tool), ...(b.args ? { args: b.args } : {}) })) };
}
