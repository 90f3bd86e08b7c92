import type { Persona } from './manifest-schemas.ts';

/** Whether the list holds `name`: `*`, the name itself, or — for `memory.read_graph` — `memory.*`. */
function listed(list: readonly string[], name: string): boolean {
  if (list.includes('*') || list.includes(name)) return true;
  const dot = name.indexOf('.');
  return dot > 0 && list.includes(`${name.slice(0, dot)}.*`);
}

/** An allow-list of every tool: for listing what is registered whatever a persona allows. */
export const EVERY_TOOL: AllowList = Object.freeze({ tools: Object.freeze(['*']) as string[] });

/** What {@link personaAllows} reads of a persona. */
export type AllowList = Pick<Persona, 'tools' | 'denyTools'>;

/**
 * Whether an allow-list (a persona's `tools`, minus its `denyTools`) lets a caller use `name`: it
 * has `*`, the name itself, or — for a namespaced tool `memory.read_graph` — `memory.*`, and the
 * deny list names none of those. The ToolRunner checks every call with it; agent-made tools and
 * upgrades check their own calls against their creator's list too.
 */
export function personaAllows(persona: AllowList, name: string): boolean {
  if (persona.denyTools?.length && listed(persona.denyTools, name)) return false;
  return listed(persona.tools, name);
}
