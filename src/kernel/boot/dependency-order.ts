/**
 * One dependency order for everything that starts things which stand on each other: the persona's
 * upgrades at boot, the changes brought back into force, the agent-made upgrades started.
 */

/**
 * `ids` ordered so that each comes after the ids `depsOf` names for it (those among `ids`; others
 * are ignored). Ties keep the order of `ids`; a cycle is broken where it is found (whoever starts
 * them reports it, with its path).
 */
export function dependencyOrder(ids: Iterable<string>, depsOf: (id: string) => Iterable<string>): string[] {
  const wanted = new Set(ids);
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const d of depsOf(id)) if (wanted.has(d)) visit(d);
    out.push(id);
  };
  wanted.forEach(visit);
  return out;
}
