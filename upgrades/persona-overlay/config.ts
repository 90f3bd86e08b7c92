/** The PersonaOverlay upgrade takes no options: any given is refused at boot, naming it. */
import * as z from 'zod';

export const PersonaOverlayConfigSchema = z.strictObject({});

/** The PersonaOverlay upgrade's options: none. */
export type PersonaOverlayConfig = z.input<typeof PersonaOverlayConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    PersonaOverlay: PersonaOverlayConfig;
  }
}
