/**
 * Nothing secret leaves in a span: every attribute and event attribute is masked before export —
 * the environment's secret values wherever they appear (raw, or inside JSON text such as the AI
 * SDK's recorded arguments), and the value of any key that looks like a secret (`api_key`,
 * `token`, `password`, `authorization`, ...), at any depth of JSON text.
 */
import { MASK, secretMasker } from '../journal/secrets.ts';

/** Keys whose values are never exported. */
export const SECRET_KEY = /key|token|secret|passw|authori[sz]ation|credential|cookie/i;

/** Masks secret-looking keys at any depth of `value`. */
export function maskKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? MASK : maskKeys(v)]));
  return value;
}

/** A function masking one attribute value (string, number, boolean or an array of them). */
export function attributeMasker(env: Readonly<Record<string, string | undefined>>): (key: string, value: unknown) => unknown {
  const mask = secretMasker(env);
  const text = (s: string): string => {
    const t = s.trimStart();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return mask(JSON.stringify(maskKeys(JSON.parse(s))));
      } catch {
        // Not JSON after all.
      }
    }
    return mask(s);
  };
  return (key, value) => {
    if (SECRET_KEY.test(key.split('.').at(-1) ?? key) && !/tokens$/i.test(key)) return MASK;
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? text(v) : v));
    return value;
  };
}
