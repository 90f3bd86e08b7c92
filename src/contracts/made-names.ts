/**
 * The names agents' work gets, and what to say when a name is refused. Agent-made upgrades have
 * kebab-case ids (`notes-index`) so that they never collide with the built-in upgrades, whose ids
 * are PascalCase (`Workspace`); the tools agents make are always namespaced: `made.<tool>` for
 * `create_tool`'s, `<upgrade id in snake_case>.<tool>` for an agent-made upgrade's
 * (`notes_index.notes_summary`). A refusal names the rule, why, and — when the system made
 * something of a near name — that name, as the ToolRunner's `did you mean` does for tools.
 */
import { quote } from '../kernel/bounded.ts';
import { closest } from '../kernel/suggest.ts';

/** The rule for agent-made upgrade ids, and why, in one sentence a refusal can end with. */
export const MADE_UPGRADE_ID_RULE =
  'agent-made upgrade ids are kebab-case, 2 to 40 characters (e.g. "notes-index"), so they never collide with the built-in upgrades, whose ids are PascalCase (e.g. "Workspace")';

/** The rule for the names of tools agents made. */
export const MADE_TOOL_NAME_RULE =
  'tools agents made are named <namespace>.<tool>: made.<tool> for create_tool\'s, <upgrade id in snake_case>.<tool> for an agent-made upgrade\'s (notes-index -> notes_index.notes_summary)';

/** `CallCounter`, `call_counter`, `Call Counter` -> `call-counter`: the id an agent-made upgrade of that name has. */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `; did you mean "a" or "b"?` for non-empty `names`, else nothing. */
export function didYouMean(names: readonly string[]): string {
  return names.length ? `; did you mean ${names.map((n) => quote(n)).join(' or ')}?` : '';
}

/**
 * Agent-made upgrade ids near `id` among `made`: its kebab-case spelling first (`CallCounter` ->
 * `call-counter`), else the closest ids.
 */
export function nearMadeUpgrades(id: unknown, made: readonly string[]): string[] {
  if (typeof id !== 'string' || !made.length) return [];
  const kebab = kebabCase(id);
  if (made.includes(kebab)) return [kebab];
  return closest(kebab || id, made, 2);
}

/**
 * Tools agents made near `name`: those whose own name (after the dot) is `name`'s own name
 * (`count_up` -> `call_counter.count_up`), else the closest names. For a whole namespace
 * (`CallCounter.*`), the namespace the system made of that name (`call_counter.*`).
 */
export function nearMadeTools(name: unknown, made: readonly string[]): string[] {
  if (typeof name !== 'string' || !made.length) return [];
  const local = name.slice(name.lastIndexOf('.') + 1);
  if (local === '*') {
    const ns = kebabCase(name.slice(0, -2)).replace(/-/g, '_');
    return made.some((m) => m.startsWith(`${ns}.`)) && `${ns}.*` !== name ? [`${ns}.*`] : [];
  }
  const own = (m: string) => m.slice(m.indexOf('.') + 1);
  const same = made.filter((m) => own(m) === local && m !== name);
  if (same.length) return same.slice(0, 3);
  const near = new Set(closest(local, made.map(own), 2));
  return made.filter((m) => near.has(own(m)) && m !== name).slice(0, 2);
}
