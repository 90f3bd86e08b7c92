import { quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { closest } from '../../src/kernel/suggest.ts';
import type { ProjectFiles } from '../../src/platform/platform.ts';
import { parseBlueprint, type Blueprint } from './front-matter.ts';

/** Summary of one blueprint, as `list_blueprints` returns it. */
export type BlueprintSummary = Omit<Blueprint, 'body'>;

/** The Blueprints upgrade's API. */
export interface BlueprintRegistryApi {
  /** Every blueprint, sorted by id. */
  list(): BlueprintSummary[];
  /** The blueprint with `id`; throws `BLUEPRINT_NOT_FOUND` suggesting close ids. */
  get(id: string): Blueprint;
}

/** Reads and parses every `blueprints/*.md`; ids must be unique. */
export async function loadBlueprints(project: ProjectFiles): Promise<Blueprint[]> {
  const out: Blueprint[] = [];
  const seen = new Map<string, string>();
  for (const file of await project.list('blueprints', '.md')) {
    if (file.endsWith('/README.md')) continue;
    const bp = parseBlueprint(file, await project.read(file));
    const prior = seen.get(bp.id);
    if (prior) throw new ArmatureError('BLUEPRINT_INVALID', `[blueprints] ${file}: id ${bp.id} is already used by ${prior}`);
    seen.set(bp.id, file);
    out.push(bp);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** A registry over loaded blueprints. */
export function createBlueprintRegistry(blueprints: readonly Blueprint[]): BlueprintRegistryApi {
  const byId = new Map(blueprints.map((b) => [b.id, b]));
  return {
    list: () => blueprints.map(({ body: _body, ...summary }) => summary),
    get(id) {
      const bp = byId.get(id) ?? byId.get(id.toUpperCase().replace(/^0X/, '0x'));
      if (bp) return bp;
      const near = closest(id, byId.keys());
      throw new ArmatureError('BLUEPRINT_NOT_FOUND', `[blueprints] no blueprint ${quote(id)}${near.length ? `; did you mean ${near.join(' or ')}?` : ''}`, {
        hint: 'List the blueprints with list_blueprints.',
      });
    },
  };
}
