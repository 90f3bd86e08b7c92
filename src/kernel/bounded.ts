/**
 * Bounded echoes of untrusted values. An error message names the offending value, but a 10 MB
 * name from an agent must not become a 10 MB message, log line or event: these helpers cut first.
 */

/** Default most characters of a value quoted in a message. */
export const QUOTE_CHARS = 80;

/**
 * `value` as a JSON string literal of at most about `max` characters: a longer string is cut and
 * says how long it was, e.g. `"aaaa…" (10485760 characters)`. Non-strings are described by type.
 */
export function quote(value: unknown, max = QUOTE_CHARS): string {
  if (typeof value !== 'string') {
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
    return `a ${Array.isArray(value) ? 'list' : typeof value}`;
  }
  if (value.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, max))}… (${value.length} characters)`;
}

/** `text` cut to `max` characters, saying how many were left out. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/**
 * Untrusted text (an agent's reason, ...) on one terminal line: control characters (escape
 * sequences, newlines) become spaces, and it is cut to `max` characters with `…`.
 */
export function oneLine(text: string, max = 60): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Longest name (tool, instance id, namespace, capability) accepted anywhere, in characters. */
export const MAX_NAME_LENGTH = 128;

/** `name` as shown in events, logs and transcripts: cut to {@link MAX_NAME_LENGTH} characters and `…` when longer. */
export function shortName(name: string): string {
  return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}…` : name;
}

/**
 * Why `value` cannot be a name of this kind, or `undefined` when it can: a non-empty string of at
 * most {@link MAX_NAME_LENGTH} characters without control characters. Checked before any costly
 * work (a lookup, a suggestion search, an event), so a 10 MB name costs nothing.
 */
export function nameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `it is ${quote(value)}, not a string`;
  if (value.length === 0) return 'it is empty';
  if (value.length > MAX_NAME_LENGTH) return `names have at most ${MAX_NAME_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'it holds control characters';
  return undefined;
}

/** Longest delay a timer can hold (2^31 - 1 ms, ~24.8 days): Node and browsers fire a longer one at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `ms` as a timer can hold it: a longer delay (a timeout an agent asked for) means "a very long
 * time", not "now", which is what `setTimeout` would make of it.
 */
export function timerMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}

/**
 * Why `ms` cannot be a time limit, or undefined when it can: a number of ms from 1 to
 * {@link MAX_TIMER_MS}, what a timer holds (one longer would fire at once). `name` is how the
 * caller spells the option (`timeoutMs`, `timeout_ms`); the message names the value and the range.
 */
export function timeoutProblem(ms: unknown, name: string): string | undefined {
  if (typeof ms === 'number' && ms >= 1 && ms <= MAX_TIMER_MS) return undefined;
  return `${name} ${quote(ms)} is out of range: it must be 1 to ${MAX_TIMER_MS} ms (about 24.8 days)`;
}
