/**
 * The `persona` kind of change: how an overlay is checked (it adds only agent-made upgrades and
 * tools agents made; what it builds on may still wait for approval), applied to the persona in
 * force, and taken off.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeKindHandler, ChangesApi, ChangeTest } from '../../src/contracts/change-contract.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { EVERY_TOOL } from '../../src/kernel/allow-list.ts';
import { didYouMean, MADE_TOOL_NAME_RULE, MADE_UPGRADE_ID_RULE, nearMadeTools, nearMadeUpgrades } from '../../src/contracts/made-names.ts';
import { namespaceOfMadeUpgrade } from '../../src/kernel/namespaces.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import { applyOverlay, type PersonaOverlayContent } from './overlay.ts';

/** Modules whose tools agents made: an overlay may allow those, never a built-in upgrade's. */
const MADE_BY_AGENTS = new Set(['MadeTools', 'MadeUpgrades']);

/** Options of {@link createOverlayKind}. */
export interface OverlayKindOptions {
  changes: ChangesApi;
  runner: ToolRunnerApi;
  /** The persona in force (changed in place). */
  live: Persona;
  /** Its file's fields. */
  base: Persona;
  /** Hears every change of the overlay in force; resolves once its listeners are done. */
  changed(overlay: PersonaOverlayContent | undefined): Promise<void>;
}

/** Creates the `persona` kind. */
export function createOverlayKind(o: OverlayKindOptions): ChangeKindHandler<PersonaOverlayContent> {
  const { changes } = o;

  /** An agent-made upgrade's change in force, else its newest pending one. */
  const upgradeChange = (id: string) => changes.active('upgrade', id) ?? changes.list({ kind: 'upgrade', target: id, status: 'pending' })[0];

  /** Agent-made upgrades with a version (in force, waiting, or once made). */
  const madeUpgrades = () => [...new Set(changes.list({ kind: 'upgrade' }).filter((r) => r.hash !== null).map((r) => r.target))].sort();
  /** Every tool agents made or declared in a version: registered, of made tools, of agent-made upgrades. */
  const madeTools = (): string[] => {
    const names = new Set(o.runner.getToolDeclarations({ persona: EVERY_TOOL }).filter((d) => MADE_BY_AGENTS.has(d.module)).map((d) => d.name));
    for (const r of changes.list({ kind: 'tool' })) if (r.hash !== null) names.add(r.target);
    for (const id of madeUpgrades()) {
      const newest = changes.list({ kind: 'upgrade', target: id }).find((r) => r.hash !== null);
      const tools = (newest && (changes.content(newest) as { tools?: { name?: unknown }[] } | undefined)?.tools) ?? [];
      for (const t of tools) if (typeof t?.name === 'string') names.add(`${namespaceOfMadeUpgrade(id)}.${t.name}`);
    }
    return [...names].sort();
  };

  /** Whether `entry` names tools agents made, and the pending change it builds on, if any. */
  const toolOrigin = (entry: string): { ok: boolean; requires?: string } => {
    const dot = entry.indexOf('.');
    const ns = dot > 0 ? entry.slice(0, dot) : undefined;
    const decl = o.runner.getToolDeclaration(entry);
    if (decl) return { ok: MADE_BY_AGENTS.has(decl.module) };
    if (changes.active('tool', entry)) return { ok: true };
    if (!ns) return { ok: false };
    if (ns === 'made' || changes.list({ kind: 'tool' }).some((r) => r.target.startsWith(`${ns}.`))) return { ok: true };
    const upgrade = changes.list({ kind: 'upgrade' }).find((r) => namespaceOfMadeUpgrade(r.target) === ns);
    if (!upgrade) return { ok: false };
    const c = upgradeChange(upgrade.target);
    if (!c || c.hash === null) return { ok: false };
    return c.status === 'pending' ? { ok: true, requires: c.id } : { ok: true };
  };

  return {
    kind: 'persona',

    targetOf(c) {
      if (c?.persona !== o.live.id) {
        throw new ArmatureError('PERSONA_NOT_OWN', `[persona-overlay] an agent changes only its own persona (${o.live.id}), not ${quote(c?.persona)}`, { hint: 'Leave the persona out: update_persona changes the one you run as.' });
      }
      return c.persona;
    },

    async gate(_target, c) {
      const requires: string[] = [];
      const upgradeProblems: string[] = [];
      for (const id of c.add_upgrades) {
        const r = upgradeChange(id);
        if (!r || r.hash === null) {
          const made = [...new Set(changes.list({ kind: 'upgrade', status: 'active' }).filter((x) => x.hash !== null).map((x) => x.target))];
          const near = didYouMean(nearMadeUpgrades(id, madeUpgrades()));
          upgradeProblems.push(/^[A-Z]/.test(id)
            ? `${quote(id)} is not an agent-made upgrade${near}: ${MADE_UPGRADE_ID_RULE}. Built-in upgrades are chosen by the persona file in modules/, which a person edits.`
            : `${quote(id)} is not an agent-made upgrade in force or waiting for approval${near}${made.length ? ` (in force: ${made.join(', ')})` : ''}: create it with create_upgrade first.`);
        } else if (r.status === 'pending') requires.push(r.id);
      }
      const toolProblems: string[] = [];
      for (const t of c.add_tools) {
        const origin = toolOrigin(t);
        if (!origin.ok) {
          toolProblems.push(
            `${quote(t)} is not a tool agents made${didYouMean(nearMadeTools(t, madeTools()))}: ${MADE_TOOL_NAME_RULE}. An overlay allows only those; a person grants built-in tools in modules/personas/${o.live.id}.json.`,
          );
        }
        else if (origin.requires) requires.push(origin.requires);
      }
      const tests: ChangeTest[] = [
        { name: 'upgrades', args: { add_upgrades: c.add_upgrades }, ok: !upgradeProblems.length, ms: 0, ...(upgradeProblems.length ? { error: { code: 'CHECK_FAILED', message: upgradeProblems.join(' ') } } : {}) },
        { name: 'tools', args: { add_tools: c.add_tools, remove_tools: c.remove_tools }, ok: !toolProblems.length, ms: 0, ...(toolProblems.length ? { error: { code: 'CHECK_FAILED', message: toolProblems.join(' ') } } : {}) },
      ];
      return { problems: [...upgradeProblems, ...toolProblems], tests, requires };
    },

    async activate(_target, c) {
      applyOverlay(o.live, o.base, c);
      await o.changed(c);
    },

    async deactivate() {
      applyOverlay(o.live, o.base, undefined);
      await o.changed(undefined);
    },

    present: (c) => ({
      code: `${JSON.stringify({ add_upgrades: c.add_upgrades, add_tools: c.add_tools, remove_tools: c.remove_tools }, null, 2)}\n`,
      language: 'json',
      details: { persona: c.persona },
    }),
  };
}
