import type { Persona } from './manifest-schemas.ts';

/**
 * Whether an allow-list (a persona's `tools`) lets a caller use `name`: it has `*`, the name
 * itself, or — for a namespaced tool `memory.read_graph` — `memory.*`. The ToolRunner checks
 * every call with it; agent-made tools check their own calls against their creator's list too.
 */
export function personaAllows(persona: Pick<Persona, 'tools'>, name: string): boolean {
  if (persona.tools.includes('*') || persona.tools.includes(name)) return true;
  const dot = name.indexOf('.');
  return dot > 0 && persona.tools.includes(`${name.slice(0, dot)}.*`);
}
