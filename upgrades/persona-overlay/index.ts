import type { ChangeRecord, ChangesApi } from '../../src/contracts/change-contract.ts';
import { approvalHint, changeAnswerBase, testOutcome } from '../../src/contracts/change-history.ts';
import { describeError } from '../../src/kernel/errors.ts';
import { toDisposable } from '../../src/kernel/lifecycle.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { UpgradeMetadata, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { createOverlayKind } from './overlay-kind.ts';
import { nextOverlay, type PersonaOverlayArgs, type PersonaOverlayContent } from './overlay.ts';
import type { PersonaOverlayApi } from './contract.ts';

export type { PersonaOverlayArgs, PersonaOverlayContent } from './overlay.ts';
export type { PersonaOverlayApi } from './contract.ts';

/** Its options' schema: boot checks `config.PersonaOverlay` against it (docs/configuration.md lists them). */
export { PersonaOverlayConfigSchema as configSchema } from './config.ts';

/** PersonaOverlay: an agent extends its own persona with what it built — stored in the workspace, never in modules/. */
export const metadata: UpgradeMetadata = {
  id: 'PersonaOverlay',
  version: '1.0.0',
  description: 'Lets an agent add the upgrades and tools it built to its own persona (and take tools away) as a reversible overlay stored in the workspace.',
  dependencies: ['ToolRunner', 'Changes'],
  blueprint: '0x000083',
  category: 'agent',
  widget: 'persona-overlay-widget',
};

/** What `update_persona` answers. */
function answerOf(r: ChangeRecord, content: PersonaOverlayContent) {
  const base = changeAnswerBase(r);
  const { status } = base;
  return {
    persona: r.target,
    ...base,
    overlay: { add_upgrades: content.add_upgrades, add_tools: content.add_tools, remove_tools: content.remove_tools },
    tests: r.tests.map((t) => ({ name: t.name, ...testOutcome(t) })),
    hint:
      status === 'pending'
        ? `${approvalHint(r)}; until then the persona stays as it is.`
        : status === 'rejected'
          ? 'The persona stays as it is. Fix what the report says and call update_persona again.'
          : 'In force now. A person can roll it back on the dashboard (Changes) or boot without it (armature boot --safe).',
  };
}

export const factory: UpgradeModule<PersonaOverlayApi>['factory'] = (deps, ctx) => {
  const changes = deps.Changes as ChangesApi;
  const runner = deps.ToolRunner as ToolRunnerApi;
  // The persona file's own fields, before any overlay: what an overlay is applied to.
  const base = structuredClone(ctx.persona);
  const listeners = new Set<() => void | Promise<void>>();
  let current: PersonaOverlayContent | undefined;
  const kind = createOverlayKind({
    changes,
    runner,
    live: ctx.persona,
    base,
    changed: async (c) => {
      current = c;
      await Promise.all(
        [...listeners].map(async (l) => {
          try {
            await l();
          } catch (e) {
            console.warn(`[persona-overlay] a listener failed: ${describeError(e)}`);
          }
        }),
      );
    },
  });
  const registration = changes.registerKind(kind);
  const inForce = () => changes.active('persona', ctx.persona.id);
  return {
    api: {
      overlay: () => {
        const r = inForce();
        return current && r?.version ? { ...current, version: r.version, change: r.id, ...(r.activatedAt ? { activatedAt: r.activatedAt } : {}) } : undefined;
      },
      upgrades: () => [...(current?.add_upgrades ?? [])],
      onChange(listener) {
        listeners.add(listener);
        return toDisposable(() => listeners.delete(listener));
      },
    },
    tools: {
      async update_persona(args, call) {
        const r = inForce();
        const prior = r?.hash ? (changes.content(r) as PersonaOverlayContent | undefined) : undefined;
        const content = nextOverlay(ctx.persona.id, prior, args as PersonaOverlayArgs);
        const record = await changes.propose({ kind: 'persona', action: r?.hash ? 'update' : 'create', content, caller: call.caller, callId: call.callId, ...(typeof args.reason === 'string' ? { reason: args.reason } : {}) });
        return answerOf(record, content);
      },
    },
    // The overlay in force comes back at boot (not in safe mode).
    init: async () => {
      for (const f of await changes.restore('persona')) console.warn(`[persona-overlay] the overlay of ${f.change.target} v${f.change.version} was skipped at boot: ${describeError(f.error.message)}`);
    },
    dispose: () => {
      registration.dispose();
      listeners.clear();
    },
  };
};
