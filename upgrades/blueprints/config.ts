/** The Blueprints upgrade takes no options: any given is refused at boot, naming it. */
import * as z from 'zod';

export const BlueprintsConfigSchema = z.strictObject({});

/** The Blueprints upgrade's options: none. */
export type BlueprintsConfig = z.input<typeof BlueprintsConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    Blueprints: BlueprintsConfig;
  }
}
