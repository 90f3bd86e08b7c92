/**
 * The journal never holds a secret. Events are masked where they are made (the Agent masks keys in
 * what it streams and records); as a second line, every journal line is searched for the values
 * of the environment's secret-looking variables (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`,
 * `*CREDENTIAL*`), raw and as JSON escapes them, and each is replaced by `[masked]`.
 */

/** Names of environment variables whose values are treated as secrets. */
export const SECRET_VARIABLE = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

/** Shortest value masked: shorter ones would match ordinary text. */
const MIN_SECRET_CHARS = 8;

/** What replaces a secret. */
export const MASK = '[masked]';

/** A function masking the secret values of `env` in a line of JSON. */
export function secretMasker(env: Readonly<Record<string, string | undefined>>): (line: string) => string {
  const values = Object.entries(env)
    .filter(([name, value]) => SECRET_VARIABLE.test(name) && typeof value === 'string' && value.length >= MIN_SECRET_CHARS)
    .map(([, value]) => value!);
  // Longest first: a secret that contains another is masked whole.
  const forms = [...new Set(values.flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))].sort((a, b) => b.length - a.length);
  if (!forms.length) return (line) => line;
  return (line) => {
    for (const f of forms) if (line.includes(f)) line = line.split(f).join(MASK);
    return line;
  };
}
