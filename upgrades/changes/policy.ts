/**
 * Who decides a change. A person (the dashboard or the command line) always may, and only a
 * person approves or rejects; an agent's change goes as far as the persona's `selfModification`
 * policy for its kind lets it: `off` refuses it, `ask` leaves it pending for a person, `auto` puts
 * it in force once its gate passes.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeKind, ChangeRecord, SelfModificationPolicy } from '../../src/contracts/change-contract.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { ToolCaller } from '../../src/kernel/events.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';

/** Whether `caller` is a person (the dashboard or the command line): only people approve. */
export function isPerson(caller: ToolCaller): boolean {
  return caller === 'ui' || caller === 'cli';
}

/** The persona's `selfModification` field for each kind of change. */
const POLICY_FIELD = { tool: 'tools', upgrade: 'upgrades', blueprint: 'blueprints', persona: 'persona' } as const;

/** The persona's self-modification policy, as the change path asks it. */
export function personaPolicy(persona: Persona) {
  const policy = (kind: ChangeKind): SelfModificationPolicy => persona.selfModification?.[POLICY_FIELD[kind]] ?? 'ask';
  return {
    policy,
    /** Throws `SELF_MODIFICATION_OFF` when `caller` may not change things of `kind` at all. */
    check(kind: ChangeKind, caller: ToolCaller): void {
      if (isPerson(caller) || policy(kind) !== 'off') return;
      throw new ArmatureError('SELF_MODIFICATION_OFF', `[changes] persona ${persona.id} may not change ${POLICY_FIELD[kind]} (selfModification.${POLICY_FIELD[kind]} is "off")`, {
        hint: `A person can allow it: set "selfModification": { "${POLICY_FIELD[kind]}": "ask" } in modules/personas/${persona.id}.json.`,
      });
    },
    /** Who lets a change into force without a person's decision now: the person who proposed it, or the policy. */
    automatic: (r: ChangeRecord): string | undefined => (isPerson(r.caller.via) ? r.caller.via : policy(r.kind) === 'auto' ? 'auto' : undefined),
  };
}

/** The refusal of a person's decision (`approve`, `reject`) asked for by anyone else. */
export function refuseAgent(what: string, caller: ToolCaller): ArmatureError {
  return new ArmatureError('APPROVAL_REFUSED', `[changes] only a person can ${what} a change (from the dashboard or with armature ${what}); the caller was ${quote(caller)}`, {
    hint: 'An agent can never approve or reject a change, its own or another\'s: ask a person to review it.',
  });
}
