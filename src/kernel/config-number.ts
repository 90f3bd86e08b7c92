/**
 * Number options of an upgrade's config (`boot({ config: { [id]: {...} } })`, `armature.config.json`).
 * An option that is there but unusable is an error naming it, its value and what to pass — never
 * silently the default, which would leave the user wondering why their setting does nothing.
 */
import { quote, timeoutProblem } from './bounded.ts';
import { ArmatureError } from './errors.ts';

/**
 * Reads number option `key` of upgrade `id`'s `config`: `fallback` when it is absent. Throws
 * `INVALID_CONFIG` when it is not a finite number, is negative, or — for a `…TimeoutMs` option —
 * is not a time limit a timer can hold (1 to 2147483647 ms).
 */
export function configNumber(config: Readonly<Record<string, unknown>>, id: string, key: string, fallback: number): number;
export function configNumber(config: Readonly<Record<string, unknown>>, id: string, key: string, fallback?: number): number | undefined;
export function configNumber(config: Readonly<Record<string, unknown>>, id: string, key: string, fallback?: number): number | undefined {
  const value = config[key];
  if (value === undefined) return fallback;
  const fix = `Set ${id}.${key} to a number${fallback === undefined ? '' : ` (default ${fallback})`}, or leave it out.`;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ArmatureError('INVALID_CONFIG', `[${id}] config ${key} ${quote(value)} is not usable: it must be a number of 0 or more`, { hint: fix });
  }
  const badTimeout = key.endsWith('TimeoutMs') ? timeoutProblem(value, key) : undefined;
  if (badTimeout) throw new ArmatureError('INVALID_CONFIG', `[${id}] config ${badTimeout}`, { hint: fix });
  return value;
}
