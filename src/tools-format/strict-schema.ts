/**
 * Strict tool schemas: OpenAI's strict mode (every object closed with `additionalProperties:
 * false`, every property required, optional ones made nullable) and Anthropic's strict subset
 * (objects closed, optional properties stay optional). Keywords a dialect rejects move into the
 * description, so the model still reads them; shapes it cannot describe (maps, untyped values)
 * travel as JSON strings that {@link decodeArguments} parses back.
 *
 * zod's `toJSONSchema` targets were tried first: a round trip through `z.fromJSONSchema` rewrites
 * `format: "date-time"` into a page-long regex under `allOf`, adds ±2^53 bounds to every integer and
 * spells OpenAPI nulls as `{ type: "string", nullable: true, enum: [null] }` — none of which a
 * provider wants. This walker keeps the tool's own schema and changes only what a rule demands.
 */
import { describeWith, isFreeFormObject, isObject, isUntyped, normalizeNode, note, typesOf, type JsonSchema } from './json-schema.ts';

/** Which provider's strict rules to follow. */
export type StrictDialect = 'openai' | 'anthropic';

interface Rules {
  /** String formats the dialect accepts. */
  formats: ReadonlySet<string>;
  /** Constraint keywords kept per type; the rest become notes. */
  keep: Readonly<Record<string, readonly string[]>>;
  /** OpenAI: every property required, optional ones nullable. Anthropic: `required` unchanged. */
  requireAll: boolean;
  /** Whether a keyword's value is accepted (e.g. Anthropic's `minItems` of 0 or 1 only). */
  accepts(key: string, value: unknown): boolean;
}

const NUMERIC = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/** Regex features Anthropic's grammar compiler rejects: backreferences, lookaround, word boundaries. */
const UNSUPPORTED_REGEX = /\\[1-9bB]|\(\?[=!<]/;

const RULES: Record<StrictDialect, Rules> = {
  openai: {
    formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
    keep: { string: ['pattern'], number: NUMERIC, integer: NUMERIC, array: ['minItems', 'maxItems'] },
    requireAll: true,
    accepts: (k, v) => !(NUMERIC.includes(k) && typeof v !== 'number'),
  },
  anthropic: {
    formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']),
    keep: { string: ['pattern'], array: ['minItems'] },
    requireAll: false,
    accepts: (k, v) => (k === 'minItems' ? v === 0 || v === 1 : k === 'pattern' ? typeof v === 'string' && !UNSUPPORTED_REGEX.test(v) : true),
  },
};

/** Keywords that carry meaning for the model when dropped: they become notes in the description. */
const NOTED = new Set(['minLength', 'maxLength', 'pattern', 'format', ...NUMERIC, 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'default']);

/** Adds `null` to a converted node's accepted values. */
export function makeNullable(s: JsonSchema): JsonSchema {
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b) => isObject(b) && b.type === 'null') ? s : { ...s, anyOf: [...s.anyOf, { type: 'null' }] };
  const types = typesOf(s);
  if (types.includes('null')) return s;
  const out: JsonSchema = { ...s, type: [...types, 'null'] };
  if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
  return out;
}

/** The JSON-string stand-in for a shape strict schemas cannot describe. */
export function jsonString(n: JsonSchema, notes: string[]): JsonSchema {
  const what = typesOf(n).includes('object') ? 'a JSON object' : typesOf(n).includes('array') ? 'a JSON array' : 'any JSON value';
  const out: JsonSchema = { type: 'string', description: describeWith(n.description, [...notes, `${what}, encoded as a string`]) };
  return typesOf(n).includes('null') ? makeNullable(out) : out;
}

/** Whether a node cannot be described in a strict subset and becomes a JSON string. */
export function needsJsonString(n: JsonSchema): boolean {
  return isUntyped(n) || isFreeFormObject(n) || (typesOf(n).includes('array') && !isObject(n.items));
}

function convert(node: unknown, rules: Rules): JsonSchema {
  const n = normalizeNode(isObject(node) ? node : {});
  const notes: string[] = [];
  if ('default' in n) notes.push(note('default', n.default));
  if (needsJsonString(n)) return jsonString(n, notes);
  if (Array.isArray(n.anyOf)) {
    const out: JsonSchema = { anyOf: n.anyOf.map((b) => convert(b, rules)) };
    const d = describeWith(n.description, notes);
    if (d) out.description = d;
    return out;
  }
  const types = typesOf(n);
  const nonNull = types.filter((t) => t !== 'null');
  if (nonNull.length > 1) {
    const branches = nonNull.map((t) => convert({ ...n, type: t, description: undefined }, rules));
    if (types.includes('null')) branches.push({ type: 'null' });
    const d = describeWith(n.description, notes);
    return d ? { anyOf: branches, description: d } : { anyOf: branches };
  }
  const t = nonNull[0] ?? 'null';
  const out: JsonSchema = { type: types.includes('null') && t !== 'null' ? [t, 'null'] : t };
  if (Array.isArray(n.enum)) out.enum = types.includes('null') && !n.enum.includes(null) ? [...n.enum, null] : n.enum;
  if (t === 'object') {
    const props = (n.properties ?? {}) as JsonSchema;
    const required = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, p]) => {
        const s = convert(p, rules);
        return [k, rules.requireAll && !required.has(k) ? makeNullable(s) : s];
      }),
    );
    out.required = rules.requireAll ? Object.keys(props) : Object.keys(props).filter((k) => required.has(k));
    out.additionalProperties = false;
  } else if (t === 'array') {
    out.items = convert(n.items, rules);
  }
  for (const [k, v] of Object.entries(n)) {
    if (k === 'format') {
      if (typeof v === 'string' && rules.formats.has(v) && t === 'string') out.format = v;
      else notes.push(note(k, v));
    } else if (k !== 'default' && NOTED.has(k)) {
      if ((rules.keep[t] ?? []).includes(k) && rules.accepts(k, v)) out[k] = v;
      else notes.push(note(k, v));
    }
  }
  const d = describeWith(n.description, notes);
  if (d) out.description = d;
  return out;
}

/**
 * The strict form of a tool's input schema (an object schema, `$ref`s already inlined). The root
 * stays an object even without properties: a tool that takes nothing takes `{}`.
 */
export function toStrictSchema(schema: JsonSchema, dialect: StrictDialect): JsonSchema {
  const rules = RULES[dialect];
  const root = normalizeNode(schema);
  if (!isObject(root.properties) || !Object.keys(root.properties).length) {
    const out: JsonSchema = { type: 'object', properties: {}, required: [], additionalProperties: false };
    if (typeof root.description === 'string') out.description = root.description;
    return out;
  }
  return convert({ ...root, type: 'object' }, rules);
}
