/** MadeUpgrades' options (`boot({ config: { MadeUpgrades: {...} } })`), checked at boot. */
import * as z from 'zod';
import { numberOption, timeoutOption } from '../../src/kernel/config-schema.ts';

export const MadeUpgradesConfigSchema = z.strictObject({
  testTimeoutMs: timeoutOption('Time limit of one test of an agent-made upgrade, in ms (its module and init have the kernel\'s init limit: boot({ initTimeouts, initTimeoutMs })). Default: 5000.'),
  callTimeoutMs: timeoutOption('Time limit of one real call of an agent-made upgrade\'s tool, in ms. Default: 30000.'),
  handlerTimeoutMs: timeoutOption('Time limit of the handlers of one event delivered to an agent-made upgrade, in ms: past it the upgrade is stopped and that version held back. Default: 5000.'),
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
