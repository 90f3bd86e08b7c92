// Seeded randomness and the size of the reliability suite: the same seed gives the same calls, and
// `npm run soak` (ARMATURE_SOAK=1) runs the same trials many times longer.

/** Whether this is the long run (`npm run soak`). */
export const SOAK = process.env.ARMATURE_SOAK === '1';

/** The seed: `ARMATURE_SEED`, or a fixed one so a failure can be replayed. */
export const SEED = Number(process.env.ARMATURE_SEED ?? 20_251_123);

/** A small, fast, seedable generator (mulberry32). */
export function random(seed = SEED) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}

export type Random = ReturnType<typeof random>;

/** Strings an attacker or a confused model would send: paths out, control characters, unicode, huge ones. */
const NASTY = [
  '',
  ' ',
  '.',
  '..',
  '../secret',
  '../../etc/passwd',
  '/etc/passwd',
  'C:\\Windows\\system32',
  '\\\\server\\share',
  'a\0b',
  '\u0000',
  '.armature/runs/x',
  'notes/../../x',
  'x'.repeat(2000),
  'é✓🙂',
  '\ud800',
  '\n\r\t',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder-shaped name is the point of this seed
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  'null',
  '0x000012',
  'read_file',
  '*',
  'memory.*',
];

/** A random string: nasty, plain, or (rarely) long. */
export function randomString(r: Random): string {
  if (r.chance(0.35)) return r.pick(NASTY);
  if (r.chance(0.02)) return 'z'.repeat(r.int(300_000));
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-./ éü✓';
  return Array.from({ length: 1 + r.int(24) }, () => alphabet[r.int(alphabet.length)]).join('');
}

/** Any JSON-ish value, nested up to `depth`. */
export function randomValue(r: Random, depth = 3): unknown {
  const kinds = depth > 0 ? 10 : 7;
  switch (r.int(kinds)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), Number.MAX_VALUE, 1e-300, r.int(1000)]);
    case 3:
    case 4:
      return randomString(r);
    case 5:
      return undefined;
    case 6:
      return r.pick([NaN, Infinity, -Infinity, 10n ** 30n]);
    case 7:
      return Array.from({ length: r.int(5) }, () => randomValue(r, depth - 1));
    case 8:
    case 9: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(5); i > 0; i--) o[randomString(r).slice(0, 40)] = randomValue(r, depth - 1);
      return o;
    }
  }
  return null;
}

/**
 * Arguments for a tool with `schema`: mostly shaped like the schema (right names, sometimes the
 * right types, sometimes not), sometimes not an object at all, sometimes with extra fields.
 */
export function randomArgs(r: Random, schema: Record<string, unknown>): unknown {
  if (r.chance(0.08)) return randomValue(r, 2);
  const props = (schema.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const args: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(props)) {
    if (r.chance(0.2)) continue;
    if (r.chance(0.6)) {
      if (p.enum) args[name] = r.pick(p.enum);
      else if (p.type === 'string') args[name] = randomString(r);
      else if (p.type === 'integer' || p.type === 'number') args[name] = r.pick([0, 1, -5, 50, 2 ** 31, 1.5]);
      else if (p.type === 'boolean') args[name] = r.chance(0.5);
      else if (p.type === 'array') args[name] = Array.from({ length: r.int(4) }, () => randomString(r));
      else args[name] = randomValue(r, 2);
    } else args[name] = randomValue(r, 2);
  }
  if (r.chance(0.15)) args[randomString(r).slice(0, 30)] = randomValue(r, 1);
  return args;
}
