/** MadeTools' options (`boot({ config: { MadeTools: {...} } })`), checked at boot. */
import * as z from 'zod';
import { countOption, numberOption, timeoutOption } from '../../src/kernel/config-schema.ts';

export const MadeToolsConfigSchema = z.strictObject({
  testTimeoutMs: timeoutOption('Time limit of one test of an agent-made tool, in ms. Default: 5000.'),
  callTimeoutMs: timeoutOption('Time limit of one real call of an agent-made tool, in ms. Default: 30000.'),
  canaryCalls: countOption('First calls of a new version the canary watches. Default: 10.'),
  canaryFailureShare: numberOption('Share of those calls that may fail before the canary rolls the version back (0 to 1). Default: 0.5.'),
});

/** MadeTools' options. */
export type MadeToolsConfig = z.input<typeof MadeToolsConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    MadeTools: MadeToolsConfig;
  }
}
