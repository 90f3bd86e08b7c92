import type { BlueprintSummary } from './contract.ts';

/** How many blueprints the snapshot lists (by id); the card reads the rest with list_blueprints. */
export const SNAPSHOT_BLUEPRINTS = 300;

/** One blueprint as the card lists it. */
export interface BlueprintLine {
  id: string;
  title: string;
  target: string;
  origin: 'project' | 'agent';
  /** An agent-made blueprint's version in force. */
  version?: number;
}

/** What the Blueprints card shows: the blueprints in force, by id; it reads one with read_blueprint. */
export interface BlueprintsSnapshot {
  blueprints: BlueprintLine[];
  /** Blueprints in force, listed or not. */
  total: number;
}

/** The Blueprints snapshot of `list`. */
export function blueprintsSnapshot(list: readonly BlueprintSummary[]): BlueprintsSnapshot {
  return {
    blueprints: list.slice(0, SNAPSHOT_BLUEPRINTS).map((b) => ({ id: b.id, title: b.title, target: b.target, origin: b.origin, ...(b.version === undefined ? {} : { version: b.version }) })),
    total: list.length,
  };
}
