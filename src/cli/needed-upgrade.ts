/**
 * A command that needs an upgrade the persona does not give it: one refusal for every command.
 * A persona that does not load the upgrade is a wrong pairing of command and persona (bad usage,
 * exit 2); an upgrade that is loaded by the persona but failed is a failed module (exit 1).
 */
import type { ArmatureSystem } from '../kernel/boot/boot.ts';

/** Why upgrade `id` (which does `role` for the command) is not usable, with the exit code; `undefined` when it is loaded. */
export function missingUpgrade(sys: ArmatureSystem, id: string, role: string): { code: 1 | 2; message: string } | undefined {
  const report = sys.modules.find((m) => m.id === id);
  if (report?.state === 'loaded') return undefined;
  const persona = sys.persona.id;
  if (report) {
    const cause = report.rootCause ? ` (because ${report.rootCause} failed)` : '';
    return { code: 1, message: `${id}, which ${role}, failed to load${cause}: ${report.error?.message ?? 'no reason was given'}` };
  }
  return { code: 2, message: `persona ${persona} does not load ${id}, which ${role}: add "${id}" to "upgrades" in modules/personas/${persona}.json, or use a persona that has it` };
}
