/**
 * Gemini's function `parameters`: a subset of the OpenAPI 3.0 Schema object. One type per node
 * (`nullable: true` instead of a `null` type), no `$ref`, `oneOf`, `allOf`, `const` or
 * `additionalProperties`; `enum` only on strings; an object must list its properties; `format`
 * only `enum`/`date-time` on strings, `float`/`double` on numbers, `int32`/`int64` on integers.
 * What Gemini cannot say moves into the description; maps and untyped values travel as JSON
 * strings (see {@link decodeArguments}).
 */
import { describeWith, isObject, normalizeNode, note, typesOf, type JsonSchema } from './json-schema.ts';
import { needsJsonString } from './strict-schema.ts';

const FORMATS: Record<string, readonly string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

/** Constraint keywords Gemini's Schema object has, by type. */
const KEEP: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  array: ['minItems', 'maxItems'],
  object: ['minProperties', 'maxProperties'],
};

const NOTED = new Set(['minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'default']);

function finish(out: JsonSchema, description: unknown, notes: string[], nullable: boolean): JsonSchema {
  const d = describeWith(description, notes);
  if (d) out.description = d;
  if (nullable) out.nullable = true;
  return out;
}

function convert(node: unknown): JsonSchema {
  const n = normalizeNode(isObject(node) ? node : {});
  const notes: string[] = [];
  if ('default' in n) notes.push(note('default', n.default));
  let nullable = typesOf(n).includes('null') || (Array.isArray(n.enum) && n.enum.includes(null));
  if (needsJsonString(n)) {
    const what = typesOf(n).includes('object') ? 'a JSON object' : typesOf(n).includes('array') ? 'a JSON array' : 'any JSON value';
    return finish({ type: 'string' }, n.description, [...notes, `${what}, encoded as a string`], nullable);
  }
  if (Array.isArray(n.anyOf)) {
    const branches = n.anyOf.filter(isObject).map(normalizeNode);
    const real = branches.filter((b) => !(typesOf(b).length === 1 && typesOf(b)[0] === 'null'));
    nullable ||= real.length < branches.length;
    if (real.length === 1) {
      const only = convert(real[0]);
      const description = [n.description, only.description].filter((d) => typeof d === 'string' && d).join(' ') || undefined;
      return finish({ ...only }, description, notes, nullable || only.nullable === true);
    }
    return finish({ anyOf: real.map(convert) }, n.description, notes, nullable);
  }
  const types = typesOf(n).filter((t) => t !== 'null');
  if (types.length > 1) return finish({ anyOf: types.map((t) => convert({ ...n, type: t, description: undefined })) }, n.description, notes, nullable);
  const t = types[0] ?? 'string';
  const out: JsonSchema = { type: t };
  if (Array.isArray(n.enum)) {
    const values = n.enum.filter((v) => v !== null);
    if (t === 'string' && values.every((v) => typeof v === 'string')) out.enum = values;
    else notes.push(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (t === 'object') {
    const props = n.properties as JsonSchema;
    out.properties = Object.fromEntries(Object.entries(props).map(([k, p]) => [k, convert(p)]));
    const required = (Array.isArray(n.required) ? (n.required as string[]) : []).filter((k) => k in props);
    if (required.length) out.required = required;
  } else if (t === 'array') {
    out.items = convert(n.items);
  }
  for (const [k, v] of Object.entries(n)) {
    if (k === 'format') {
      if (typeof v === 'string' && (FORMATS[t] ?? []).includes(v)) out.format = v;
      else notes.push(note(k, v));
    } else if (k !== 'default' && NOTED.has(k)) {
      if ((KEEP[t] ?? []).includes(k) && (typeof v === 'number' || (k === 'pattern' && typeof v === 'string'))) out[k] = v;
      else notes.push(note(k, v));
    }
  }
  return finish(out, n.description, notes, nullable);
}

/**
 * Gemini `parameters` for a tool's input schema (`$ref`s already inlined), or `undefined` for a
 * tool without parameters: Gemini rejects an object schema with no properties.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema | undefined {
  const root = normalizeNode(schema);
  if (!isObject(root.properties) || !Object.keys(root.properties).length) return undefined;
  return convert({ ...root, type: 'object' });
}
