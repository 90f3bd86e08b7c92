/**
 * A persona overlay: what an agent added to (or took from) its own persona — agent-made upgrades
 * to run, tools agents made to allow, tools to deny — stored in the workspace as versions on the
 * change path (kind `persona`, target the persona's id). The persona files in `modules/` are never
 * rewritten: the overlay is applied to the persona in force, and taken off by a rollback, a
 * retirement or safe mode.
 */
import type { Persona } from '../../src/kernel/manifest-schemas.ts';

/** The content of one version of a persona's overlay: the whole overlay, not a difference. */
export interface PersonaOverlayContent {
  /** The persona it applies to. */
  persona: string;
  /** Agent-made upgrades the persona runs, e.g. `notes-index`. */
  add_upgrades: string[];
  /** Tools agents made that the persona may call: names or `<namespace>.*`. */
  add_tools: string[];
  /** Tools the persona may no longer call, even where its file allows them. */
  remove_tools: string[];
}

/** What `update_persona` asks for. */
export interface PersonaOverlayArgs {
  add_upgrades?: string[];
  add_tools?: string[];
  remove_tools?: string[];
}

const unique = (xs: readonly string[]) => [...new Set(xs)];

/**
 * The next overlay: `base` (the one in force, or none) with `args` applied. A tool added is no
 * longer removed and a tool removed is no longer added, so the last word wins.
 */
export function nextOverlay(persona: string, base: PersonaOverlayContent | undefined, args: PersonaOverlayArgs): PersonaOverlayContent {
  const add = args.add_tools ?? [];
  const remove = args.remove_tools ?? [];
  return {
    persona,
    add_upgrades: unique([...(base?.add_upgrades ?? []), ...(args.add_upgrades ?? [])]),
    add_tools: unique([...(base?.add_tools ?? []).filter((t) => !remove.includes(t)), ...add]),
    remove_tools: unique([...(base?.remove_tools ?? []).filter((t) => !add.includes(t)), ...remove]),
  };
}

/**
 * Makes `live` (the persona in force) the persona file's `base` with `overlay` applied, in place:
 * every reader of the persona (the ToolRunner's allow-list, the prompt) sees it at once.
 */
export function applyOverlay(live: Persona, base: Persona, overlay: PersonaOverlayContent | undefined): void {
  live.tools.splice(0, live.tools.length, ...unique([...base.tools, ...(overlay?.add_tools ?? [])]));
  const deny = unique([...(base.denyTools ?? []), ...(overlay?.remove_tools ?? [])]);
  if (deny.length) live.denyTools = deny;
  else delete live.denyTools;
}
