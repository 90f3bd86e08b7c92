/** The ToolRunner's options (`boot({ config: { ToolRunner: {...} } })`), checked at boot. */
import * as z from 'zod';
import { timeoutOption } from '../../src/kernel/config-schema.ts';

export const ToolRunnerConfigSchema = z.strictObject({
  defaultTimeoutMs: timeoutOption('Time limit of a call whose tool declares none and whose caller gives none, in ms. Default: 30000.'),
});

/** The ToolRunner's options. */
export type ToolRunnerConfig = z.input<typeof ToolRunnerConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    ToolRunner: ToolRunnerConfig;
  }
}
