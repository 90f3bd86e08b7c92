// Personas a test adds to the project's own (a platform whose project files also list them), so
// suites can boot a persona with another self-modification policy or allow-list without writing
// into modules/. Works over the Node and the browser platform alike.
import type { Platform } from '../../src/platform/platform.ts';
import defaultPersona from '../../modules/personas/default.json' with { type: 'json' };

/** `platform` with `personas` added to `modules/personas/` (a persona of the same id is replaced). */
export function withPersonas(platform: Platform, personas: readonly Record<string, unknown>[]): Platform {
  const extra = new Map(personas.map((p) => [`modules/personas/${String(p.id)}.json`, JSON.stringify(p, null, 2)]));
  return {
    ...platform,
    openStore: (name) => platform.openStore(name),
    project: {
      async list(dir, ext) {
        const own = await platform.project.list(dir, ext);
        const added = dir === 'modules/personas' && ext === '.json' ? [...extra.keys()] : [];
        return [...new Set([...own, ...added])].sort();
      },
      read: (path) => (extra.has(path) ? Promise.resolve(extra.get(path)!) : platform.project.read(path)),
    },
  };
}

/**
 * The default persona's upgrades, as `modules/personas/default.json` lists them, for personas that
 * differ from it only in policy or tools.
 */
export const DEFAULT_UPGRADES: readonly string[] = Object.freeze([...defaultPersona.upgrades]);

/** A persona that may make tools without approval (`selfModification.tools: "auto"`), allowed `tools`. */
export function makerPersona(tools: string[] = ['*'], id = 'maker'): Record<string, unknown> {
  return {
    id,
    name: 'Tool maker',
    description: 'Makes its own tools; they come into force when their tests pass.',
    upgrades: DEFAULT_UPGRADES,
    tools,
    skills: ['workspace', 'python', 'made_tools'],
    selfModification: { tools: 'auto' },
  };
}
