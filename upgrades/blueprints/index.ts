import type { ChangesApi } from '../../src/contracts/change-contract.ts';
import { describeError } from '../../src/kernel/errors.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { createBlueprintKind } from './blueprint-kind.ts';
import { tickProven, verificationChecklist } from './checklist.ts';
import type { Blueprint } from './front-matter.ts';
import { madeBlueprintHandlers } from './made-blueprints.ts';
import { createBlueprintRegistry, loadBlueprints, type BlueprintRegistryApi } from './registry.ts';

export type { BlueprintCandidate, BlueprintRegistryApi, BlueprintSummary } from './registry.ts';
export type { Blueprint } from './front-matter.ts';
export type { ChecklistItem } from './checklist.ts';
export type { MadeBlueprintContent } from './blueprint-kind.ts';
export type { BlueprintChangeAnswer } from './made-blueprints.ts';

/** Its options' schema: boot checks `config.Blueprints` against it (docs/configuration.md lists them). */
export { BlueprintsConfigSchema as configSchema } from './config.ts';

/** Blueprints: the design documents each upgrade is built from — the project's and agents' — readable by agents. */
export const metadata: UpgradeMetadata = {
  id: 'Blueprints',
  version: '1.1.0',
  description: 'Registry of the design documents each upgrade is built from: the project\'s (blueprints/*.md) and those agents write (create_blueprint).',
  dependencies: ['ToolRunner'],
  optionalDependencies: ['Changes'],
  blueprint: '0x000015',
  category: 'knowledge',
  widget: 'blueprints-widget',
};

export const factory: UpgradeModule<BlueprintRegistryApi>['factory'] = async (deps, ctx) => {
  const registry = createBlueprintRegistry(await loadBlueprints(ctx.platform.project));
  const changes = deps.Changes as ChangesApi | undefined;
  const kind = changes ? createBlueprintKind({ registry, changes }) : undefined;
  const registration = kind && changes?.registerKind(kind);
  /** The tests that passed in the gate of the upgrade in force built from `bp`: they proved its checklist items. */
  const passedTests = (bp: Blueprint): Set<string> => {
    const built = changes?.list({ kind: 'upgrade', target: bp.target, status: 'active' }).find((r) => r.hash !== null && (changes.content(r) as { blueprint?: unknown } | undefined)?.blueprint === bp.id);
    return new Set((built?.tests ?? []).filter((t) => t.ok && t.name).map((t) => t.name!));
  };
  const api: BlueprintRegistryApi = {
    list: () => registry.list(),
    // A checklist item shows as done once the gate of the upgrade in force proved it.
    get: (id) => {
      const bp = registry.get(id);
      const passed = bp.origin === 'agent' ? passedTests(bp) : new Set<string>();
      return passed.size ? { ...bp, body: tickProven(bp.body, passed) } : bp;
    },
    candidate: (id) => {
      if (kind) return kind.candidate(id);
      try {
        const blueprint = registry.get(id);
        return { blueprint, checklist: verificationChecklist(blueprint.body), status: 'project' };
      } catch {
        return undefined;
      }
    },
  };
  return {
    api,
    tools: {
      list_blueprints: () => ({ blueprints: api.list() }),
      read_blueprint: (args) => api.get(String(args.id)),
      ...madeBlueprintHandlers(changes, ctx.persona.id),
    },
    // Agent-made blueprints in force come back at boot (not in safe mode); one that fails is reported and skipped.
    init: async () => {
      for (const f of (await changes?.restore('blueprint')) ?? []) console.warn(`[blueprints] agent-made blueprint ${f.change.target} v${f.change.version} was skipped at boot: ${describeError(f.error.message)}`);
    },
    dispose: () => registration?.dispose(),
  };
};
