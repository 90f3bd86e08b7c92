import { quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { closest } from '../../src/kernel/suggest.ts';
import { projectLayers, type ProjectFiles } from '../../src/platform/platform.ts';
import type { BlueprintRegistryApi } from './contract.ts';
import { parseBlueprint, type Blueprint } from './front-matter.ts';

export type { BlueprintCandidate, BlueprintRegistryApi, BlueprintSummary } from './contract.ts';

/**
 * Ids agent-made blueprints are given: `0xA00001` up to `0xAFFFFF`. The project's own blueprints
 * stay below `0xA00000` (`loadBlueprints` refuses one in this range), so the two never collide.
 */
export const AGENT_BLUEPRINT_IDS = { first: 0xa00001, last: 0xafffff } as const;

/** Whether `id` is in the range of agent-made blueprints. */
export function isAgentBlueprintId(id: string): boolean {
  const n = /^0x[0-9A-F]{6}$/.test(id) ? Number.parseInt(id.slice(2), 16) : NaN;
  return n >= AGENT_BLUEPRINT_IDS.first - 1 && n <= AGENT_BLUEPRINT_IDS.last;
}

/**
 * Reads and parses every `blueprints/*.md` — the package's and a user's root's (see
 * `ProjectFiles.layers`); ids must be unique and below the agents' range.
 */
export async function loadBlueprints(project: ProjectFiles): Promise<Blueprint[]> {
  const out: Blueprint[] = [];
  const seen = new Map<string, string>();
  for (const layer of await projectLayers(project)) {
    for (const file of await layer.files.list('blueprints', '.md')) {
      if (file.endsWith('/README.md')) continue;
      const where = layer.kind === 'root' ? `${layer.location.replace(/\/$/, '')}/${file}` : file;
      const bp = { ...parseBlueprint(where, await layer.files.read(file)), file };
      const prior = seen.get(bp.id);
      if (prior) throw new ArmatureError('BLUEPRINT_INVALID', `[blueprints] ${where}: id ${bp.id} is already used by ${prior}`, layer.kind === 'root' ? { hint: 'Give your blueprints ids of their own: 0x100000 to 0x9FFFFF is free for a root (blueprints/README.md lists the ranges).' } : undefined);
      if (isAgentBlueprintId(bp.id)) throw new ArmatureError('BLUEPRINT_INVALID', `[blueprints] ${where}: id ${bp.id} is in 0xA00000-0xAFFFFF, the range kept for agent-made blueprints`, { hint: 'Pick an id below 0xA00000 (blueprints/README.md lists the ranges).' });
      seen.set(bp.id, where);
      out.push(bp);
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** A registry: the project's blueprints, plus agent-made ones as they come into force and go. */
export interface BlueprintRegistry extends Omit<BlueprintRegistryApi, 'candidate'> {
  /** Puts an agent-made blueprint in force (replacing its earlier version). */
  setMade(blueprint: Blueprint): void;
  /** Takes an agent-made blueprint out. */
  removeMade(id: string): void;
  /** Whether a blueprint with `id` is a file of the project. */
  isProject(id: string): boolean;
}

/** A registry over loaded blueprints. */
export function createBlueprintRegistry(blueprints: readonly Blueprint[]): BlueprintRegistry {
  const project = new Map(blueprints.map((b) => [b.id, b]));
  const made = new Map<string, Blueprint>();
  const byId = (id: string) => project.get(id) ?? made.get(id);
  return {
    list: () =>
      [...project.values(), ...made.values()]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(({ body: _body, ...summary }) => summary),
    get(id) {
      const bp = byId(id) ?? byId(String(id).toUpperCase().replace(/^0X/, '0x'));
      if (bp) return bp;
      const near = closest(id, [...project.keys(), ...made.keys()]);
      throw new ArmatureError('BLUEPRINT_NOT_FOUND', `[blueprints] no blueprint ${quote(id)}${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`, {
        hint: 'List the blueprints with list_blueprints.',
      });
    },
    setMade: (bp) => void made.set(bp.id, bp),
    removeMade: (id) => void made.delete(id),
    isProject: (id) => project.has(id),
  };
}
