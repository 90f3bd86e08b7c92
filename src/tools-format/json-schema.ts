/**
 * The small amount of JSON Schema handling every provider conversion shares: local `$ref`
 * inlining, one normal form for the keywords that have several spellings, and the notes that
 * carry a dropped keyword into the description so the model still reads it.
 */

/** A JSON Schema node, as plain JSON. */
export type JsonSchema = Record<string, unknown>;

/** A schema that cannot be converted (a `$ref` cycle, an external `$ref`). */
export class SchemaConversionError extends Error {
  /** Stable machine-readable code. */
  readonly code = 'SCHEMA_NOT_CONVERTIBLE';
  constructor(message: string) {
    super(message);
    this.name = 'SchemaConversionError';
  }
}

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Replaces every local `$ref` (`#/$defs/X`, `#/definitions/X`, `#`) with the schema it points to and
 * drops the definitions. Throws {@link SchemaConversionError} for an external reference, and for a
 * recursive one unless `cycles` is `any`, which leaves an untyped node (any JSON) where the
 * recursion would start again: providers that need inlined schemas cannot express recursion.
 */
export function inlineRefs(root: JsonSchema, options: { cycles?: 'throw' | 'any' } = {}): JsonSchema {
  const resolve = (ref: string): unknown => {
    if (ref === '#') return root;
    if (!ref.startsWith('#/')) throw new SchemaConversionError(`external $ref ${JSON.stringify(ref)} is not supported; inline the schema it points to`);
    let node: unknown = root;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isObject(node) ? node[key] : undefined;
    }
    if (node === undefined) throw new SchemaConversionError(`$ref ${JSON.stringify(ref)} points to nothing`);
    return node;
  };
  const walk = (node: unknown, active: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, active));
    if (!isObject(node)) return node;
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      if (active.includes(ref) && options.cycles === 'any') return { description: `recursive: the same shape as ${ref}` };
      if (active.includes(ref)) throw new SchemaConversionError(`recursive $ref ${JSON.stringify(ref)} (${[...active, ref].join(' -> ')}) cannot be inlined`);
      const { $ref: _ref, ...rest } = node;
      const target = walk(resolve(ref), [...active, ref]);
      return Object.keys(rest).length && isObject(target) ? { ...target, ...(walk(rest, active) as JsonSchema) } : target;
    }
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$defs' || k === 'definitions') continue;
      // Values of these keywords are data, not schemas: a property could be called "$ref".
      out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : k === 'properties' && isObject(v) ? mapValues(v, (s) => walk(s, active)) : walk(v, active);
    }
    return out;
  };
  return walk(root, []) as JsonSchema;
}

function mapValues(o: JsonSchema, f: (v: unknown) => unknown): JsonSchema {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

/**
 * One spelling per concept: `const` becomes a one-value `enum`, `oneOf` becomes `anyOf` (a model
 * fills one branch either way), and an `allOf` of object schemas is merged into one object.
 */
export function normalizeNode(node: JsonSchema): JsonSchema {
  let n: JsonSchema = { ...node };
  delete n.$schema;
  delete n.$id;
  delete n.$comment;
  if ('const' in n) {
    n.enum = [n.const];
    delete n.const;
  }
  if (Array.isArray(n.oneOf)) {
    n.anyOf = [...((n.anyOf as unknown[]) ?? []), ...n.oneOf];
    delete n.oneOf;
  }
  if (Array.isArray(n.allOf)) {
    const { allOf, ...own } = n;
    const merged: JsonSchema = {};
    for (const p of [...(allOf as unknown[]).filter(isObject), own]) {
      const properties = isObject(merged.properties) || isObject(p.properties) ? { ...((merged.properties as JsonSchema) ?? {}), ...((p.properties as JsonSchema) ?? {}) } : undefined;
      const required = Array.isArray(merged.required) || Array.isArray(p.required) ? [...new Set([...((merged.required as string[]) ?? []), ...((p.required as string[]) ?? [])])] : undefined;
      Object.assign(merged, p);
      if (properties) merged.properties = properties;
      if (required) merged.required = required;
    }
    n = merged;
  }
  if (Array.isArray(n.enum) && n.type === undefined) {
    // An enum alone still has a type: the types of its values.
    const types = [...new Set(n.enum.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v === 'number' ? 'number' : typeof v)))];
    if (types.every((t) => ['string', 'integer', 'number', 'boolean', 'null'].includes(t))) n.type = types.length === 1 ? types[0] : types.includes('number') ? types.filter((t) => t !== 'integer') : types;
  }
  return n;
}

/** The node's types, `null` included, e.g. `['string', 'null']`; empty when it names none. */
export function typesOf(node: JsonSchema): string[] {
  if (Array.isArray(node.type)) return node.type.filter((t): t is string => typeof t === 'string');
  if (typeof node.type === 'string') return [node.type];
  if (isObject(node.properties)) return ['object'];
  if (node.items !== undefined) return ['array'];
  return [];
}

/** Whether a value of any JSON type is allowed (no type, no shape, no choice). */
export function isUntyped(node: JsonSchema): boolean {
  return typesOf(node).length === 0 && !Array.isArray(node.anyOf) && !Array.isArray(node.enum);
}

/**
 * Whether `node` is an object whose keys are not listed (a map or any object): strict modes and
 * Gemini cannot describe one, so it travels as a JSON string there.
 */
export function isFreeFormObject(node: JsonSchema): boolean {
  const props = isObject(node.properties) ? Object.keys(node.properties) : [];
  return typesOf(node).includes('object') && props.length === 0 && node.additionalProperties !== false;
}

/** Whether `node` (original, after {@link normalizeNode}) admits `null`. */
export function allowsNull(node: JsonSchema): boolean {
  if (typesOf(node).includes('null')) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  if (Array.isArray(node.anyOf)) return node.anyOf.some((b) => isObject(b) && allowsNull(normalizeNode(b)));
  return isUntyped(node);
}

/** `description` with notes appended: `Path. (default: "utf8"; minLength: 1)`. */
export function describeWith(description: unknown, notes: readonly string[]): string | undefined {
  const base = typeof description === 'string' ? description.trim() : '';
  if (!notes.length) return base || undefined;
  const tail = `(${notes.join('; ')})`;
  return base ? `${base} ${tail}` : tail;
}

/** A keyword and its value as a note, e.g. `minLength: 1`. */
export function note(key: string, value: unknown): string {
  return `${key}: ${JSON.stringify(value)}`;
}

export { isObject };
