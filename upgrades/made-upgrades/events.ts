/**
 * The events MadeUpgrades adds to the system's typed map, declared here by module augmentation
 * (not in the kernel's file) and listed in its `modules/upgrades.json` entry and metadata.
 */
import type { UpgradeStatus } from './status.ts';

declare module '../../src/kernel/events.ts' {
  interface ArmatureEvents {
    /** An agent-made upgrade reported what its widget shows (`ctx.status`), or its widget state was reset (a new version, a stop). */
    'made-upgrades:status': { id: string; status: UpgradeStatus | null };
  }
}

/** The names, as the manifest lists them. */
export const MADE_UPGRADES_EVENTS = ['made-upgrades:status'] as const;
