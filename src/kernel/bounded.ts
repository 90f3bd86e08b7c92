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
