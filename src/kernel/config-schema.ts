/**
 * Upgrades' options (`boot({ config: { [id]: {...} } })`), checked at boot against each upgrade's
 * schema: a key it does not have, or a value it cannot take, fails that upgrade with a message
 * naming the upgrade, the key, the value and what it takes — `isolaton` says "did you mean
 * isolation". A config for an id no manifest registers fails the boot. At compile time the same
 * schemas type `boot({ config })`: each upgrade adds its options to {@link ArmatureConfig} by
 * module augmentation in its folder (`upgrades/<folder>/config.ts`).
 */
import * as z from 'zod';
import { quote, timeoutProblem } from './bounded.ts';
import { ArmatureError } from './errors.ts';
import { closest } from './suggest.ts';

/**
 * Every upgrade's options by its id. Upgrades add theirs by module augmentation:
 *
 * ```ts
 * declare module '../../src/kernel/config-schema.ts' {
 *   interface ArmatureConfig { Workspace: WorkspaceConfig }
 * }
 * ```
 *
 * An upgrade of your own adds its options through the package: `declare module 'armature' {
 * interface ArmatureConfig { Tally: { start?: number } } }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: every upgrade fills it by module augmentation
export interface ArmatureConfig {}

/** What `boot({ config })` takes: each upgrade's options, by id. */
export type BootConfig = { readonly [K in keyof ArmatureConfig]?: Readonly<ArmatureConfig[K]> };

/** An upgrade's config schema: a strict zod object (unknown keys are refused). */
export type ConfigSchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;

/**
 * A number option of 0 or more (what `configNumber` accepts), described for the configuration
 * reference with its default.
 */
export function numberOption(description: string) {
  return z.number({ error: 'a number' }).refine((n) => Number.isFinite(n) && n >= 0, 'a number of 0 or more').optional().describe(description);
}

/** A time limit in ms: 1 to 2147483647, what a timer holds. */
export function timeoutOption(description: string) {
  return z
    .number({ error: 'a number of ms' })
    .refine((n) => timeoutProblem(n, 'x') === undefined, 'a time limit of 1 to 2147483647 ms')
    .optional()
    .describe(description);
}

/** A whole number of at least `min`. */
export function countOption(description: string, min = 0) {
  return z.number({ error: 'a whole number' }).int({ error: 'a whole number' }).min(min, { error: `a whole number of ${min} or more` }).optional().describe(description);
}

/** A value code passes that has no JSON form (a function, an object with methods), checked by `is`. */
export function customOption<T>(description: string, is: (v: unknown) => boolean, expected: string) {
  // `x-type` names the kind in the generated reference, which JSON Schema cannot say for a function.
  return z.custom<T>(is, { error: expected }).optional().meta({ description, 'x-type': expected });
}

/** What an issue of one option says: the key, the value and what it takes. */
function describeIssue(id: string, issue: z.core.$ZodIssue, config: Readonly<Record<string, unknown>>, keys: readonly string[]): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((k) => {
        const near = closest(k, keys, 1);
        return `unknown option ${quote(k)}${near.length ? ` (did you mean ${quote(near[0]!)}?)` : ''}; ${id} takes ${keys.length ? keys.join(', ') : 'no options'}`;
      })
      .join('; ');
  }
  const key = issue.path.map(String).join('.');
  const value = issue.path.reduce<unknown>((v, p) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p as PropertyKey] : undefined), config);
  if (issue.code === 'invalid_value') return `option ${key} ${quote(value)} is not one of ${issue.values.map((v) => quote(v)).join(', ')}`;
  return `option ${key} ${quote(value)} is not usable: it must be ${issue.message}`;
}

/**
 * Checks upgrade `id`'s `config` against its `schema`. Throws `INVALID_CONFIG` naming the upgrade
 * and, for each problem, the key, its value and what it takes (with the closest key for an unknown one).
 */
export function checkConfig(id: string, schema: ConfigSchema, config: Readonly<Record<string, unknown>>): void {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new ArmatureError('INVALID_CONFIG', `[config] ${id}: its options must be an object of { option: value }, got ${quote(config)}`, { hint: `Pass config: { ${id}: { ... } }.` });
  }
  const result = schema.safeParse(config);
  if (result.success) return;
  const keys = Object.keys(schema.shape);
  const problems = result.error.issues.map((i) => describeIssue(id, i, config, keys));
  throw new ArmatureError('INVALID_CONFIG', `[config] ${id}: ${problems.join('; ')}`, {
    details: { upgrade: id, issues: result.error.issues.map((i) => ({ path: i.path.map(String), code: i.code })) },
    hint: `Fix or leave out the option${problems.length === 1 ? '' : 's'}; docs/configuration.md lists every option of every upgrade with its default.`,
  });
}

/**
 * Throws `INVALID_CONFIG` for a config keyed by an id no manifest registers (with the closest
 * registered id): its options would otherwise be ignored without a word.
 */
export function checkConfigIds(config: Readonly<Record<string, unknown>>, registered: Iterable<string>): void {
  const ids = [...registered];
  for (const id of Object.keys(config)) {
    if (ids.includes(id)) continue;
    const near = closest(id, ids, 1);
    throw new ArmatureError('INVALID_CONFIG', `[config] no upgrade ${quote(id)}${near.length ? ` (did you mean ${quote(near[0]!)}?)` : ''}: its options would go nowhere`, {
      hint: `Key config by an upgrade id: ${ids.join(', ')}.`,
    });
  }
}
