/** The Changes upgrade's options (`boot({ config: { Changes: {...} } })`), checked at boot. */
import * as z from 'zod';
import { countOption } from '../../src/kernel/config-schema.ts';

export const ChangesConfigSchema = z.strictObject({
  maxTestValueChars: countOption('Longest value or error of one test kept in a change\'s report, in characters. Default: 4000.'),
});

/** The Changes upgrade's options. */
export type ChangesConfig = z.input<typeof ChangesConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    Changes: ChangesConfig;
  }
}
