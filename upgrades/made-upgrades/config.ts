/** MadeUpgrades' options (`boot({ config: { MadeUpgrades: {...} } })`), checked at boot. */
import { z } from 'zod';
import { numberOption, timeoutOption } from '../../src/kernel/config-schema.ts';

export const MadeUpgradesConfigSchema = z.strictObject({
  testTimeoutMs: timeoutOption('Time limit of one test of an agent-made upgrade, and of its init under test, in ms. Default: 5000.'),
  callTimeoutMs: timeoutOption('Time limit of one real call of an agent-made upgrade\'s tool, in ms. Default: 30000.'),
  initTimeoutMs: timeoutOption('Time limit of an agent-made upgrade\'s init when it comes into force, in ms. Default: 10000.'),
  disposeTimeoutMs: timeoutOption('Time limit of an agent-made upgrade\'s dispose, in ms. Default: 2000.'),
  drainTimeoutMs: timeoutOption('How long the calls in flight of a replaced version may finish, in ms. Default: callTimeoutMs.'),
  eventsPerSecond: numberOption('Most events, and status updates, each agent-made upgrade may send per second. Default: 50.'),
});

/** MadeUpgrades' options. */
export type MadeUpgradesConfig = z.input<typeof MadeUpgradesConfigSchema>;

declare module '../../src/kernel/config-schema.ts' {
  interface ArmatureConfig {
    MadeUpgrades: MadeUpgradesConfig;
  }
}
