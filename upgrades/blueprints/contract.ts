/**
 * The Blueprints upgrade's contract: its API and the shapes it answers in. Other upgrades import
 * these from here, never from the implementation.
 */
import type { ChecklistItem } from './checklist.ts';
import type { Blueprint } from './front-matter.ts';

export type { Blueprint } from './front-matter.ts';
export type { ChecklistItem } from './checklist.ts';

/** Summary of one blueprint, as `list_blueprints` returns it. */
export type BlueprintSummary = Omit<Blueprint, 'body'>;

/** A blueprint an upgrade may be built from: in force, or an agent-made version waiting for approval. */
export interface BlueprintCandidate {
  blueprint: Blueprint;
  /** Its verification checklist. */
  checklist: ChecklistItem[];
  /** `project`: a file; `active`: an agent-made version in force; `pending`: one waiting for a person. */
  status: 'project' | 'active' | 'pending';
  /** The change of that version (agent-made only). */
  change?: string;
}

/** The Blueprints upgrade's API. */
export interface BlueprintRegistryApi {
  /** Every blueprint in force, the project's and agents', sorted by id. */
  list(): BlueprintSummary[];
  /** The blueprint with `id`; throws `BLUEPRINT_NOT_FOUND` suggesting close ids. */
  get(id: string): Blueprint;
  /**
   * The blueprint `id` for building an upgrade from: the one in force, else the newest agent-made
   * version waiting for approval, else `undefined`.
   */
  candidate(id: string): BlueprintCandidate | undefined;
}

declare module '../../src/kernel/services.ts' {
  interface ArmatureServices {
    Blueprints: BlueprintRegistryApi;
  }
}

declare module '../../src/kernel/tool-contract.ts' {
  interface ArmatureToolMap {
    list_blueprints: { args: Record<string, never>; value: { blueprints: BlueprintSummary[] } };
    read_blueprint: { args: { id: string }; value: Blueprint };
  }
}
