// Each model provider's published rules for tool declarations, written as checks, independently of
// the converters in src/tools-format (nothing here is imported from there). Sources: OpenAI
// function calling and Structured Outputs "supported schemas"; Anthropic tool use and strict tool
// use / structured outputs "JSON Schema limitations"; Gemini FunctionDeclaration and Schema (the
// OpenAPI 3.0 subset); MCP's Tool (the SDK's own zod schema, plus the tool-name guidance).
import * as z from 'zod';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls `visit` on every schema node under `root` with its JSON path. */
function eachNode(root: unknown, visit: (n: Node, path: string) => void, path = '$'): void {
  if (!isNode(root)) return;
  visit(root, path);
  if (isNode(root.properties)) for (const [k, v] of Object.entries(root.properties)) eachNode(v, visit, `${path}.properties.${k}`);
  if (root.items !== undefined) eachNode(root.items, visit, `${path}.items`);
  for (const key of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(root[key])) (root[key] as unknown[]).forEach((b, i) => eachNode(b, visit, `${path}.${key}[${i}]`));
  if (isNode(root.additionalProperties)) eachNode(root.additionalProperties, visit, `${path}.additionalProperties`);
  for (const key of ['$defs', 'definitions']) if (isNode(root[key])) for (const [k, v] of Object.entries(root[key] as Node)) eachNode(v, visit, `${path}.${key}.${k}`);
}

/** Whether `schema` is a JSON Schema zod can build a validator from (what the ToolRunner does). */
function compiles(schema: unknown): string | undefined {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return undefined;
  } catch (e) {
    return `not a usable JSON Schema: ${(e as Error).message}`;
  }
}

const OPENAI_STRICT_KEYS = new Set(['type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems']);
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** OpenAI Structured Outputs: the supported subset, every object closed and fully required. */
export function openaiStrictSchemaProblems(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema) || schema.type !== 'object') out.push('$: the root must be an object schema');
  if (isNode(schema) && schema.anyOf) out.push('$: the root must not be anyOf');
  let props = 0;
  let enums = 0;
  eachNode(schema, (n, path) => {
    for (const k of Object.keys(n)) if (!OPENAI_STRICT_KEYS.has(k)) out.push(`${path}: keyword ${k} is not supported in strict mode`);
    if (n.type === undefined && !n.anyOf && !n.$ref && !n.enum && !n.const) out.push(`${path}: every schema needs a type`);
    const types = Array.isArray(n.type) ? n.type : [n.type];
    if (types.includes('object')) {
      if (n.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
      const keys = Object.keys(isNode(n.properties) ? n.properties : {});
      const req = Array.isArray(n.required) ? n.required : [];
      if (keys.length !== req.length || keys.some((k) => !req.includes(k))) out.push(`${path}: every property must be required (${keys.join(',')} vs ${req.join(',')})`);
      props += keys.length;
    }
    if (typeof n.format === 'string' && !OPENAI_FORMATS.has(n.format)) out.push(`${path}: format ${n.format} is not supported`);
    if (Array.isArray(n.enum)) enums += n.enum.length;
    if (path.split('.properties.').length - 1 > 10) out.push(`${path}: more than 10 levels of nesting`);
  });
  if (props > 5000) out.push(`${props} properties (at most 5000)`);
  if (enums > 1000) out.push(`${enums} enum values (at most 1000)`);
  return out;
}

const ANTHROPIC_STRICT_FORBIDDEN = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems', 'uniqueItems', 'not', 'if', 'then', 'else', 'patternProperties', 'minProperties', 'maxProperties', 'oneOf']);
const ANTHROPIC_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

/** Anthropic strict tool use: JSON Schema limitations of structured outputs. */
export function anthropicStrictSchemaProblems(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema) || schema.type !== 'object') out.push('$: input_schema must be an object schema');
  eachNode(schema, (n, path) => {
    for (const k of Object.keys(n)) if (ANTHROPIC_STRICT_FORBIDDEN.has(k)) out.push(`${path}: ${k} is not supported`);
    const types = Array.isArray(n.type) ? n.type : [n.type];
    if (types.includes('object') && n.additionalProperties !== false) out.push(`${path}: additionalProperties must be false`);
    if (n.minItems !== undefined && n.minItems !== 0 && n.minItems !== 1) out.push(`${path}: minItems must be 0 or 1`);
    if (typeof n.format === 'string' && !ANTHROPIC_FORMATS.has(n.format)) out.push(`${path}: format ${n.format} is not supported`);
    if (typeof n.pattern === 'string' && /\\[1-9bB]|\(\?[=!<]/.test(n.pattern)) out.push(`${path}: pattern uses backreferences, lookaround or \\b`);
    if (typeof n.$ref === 'string' && !n.$ref.startsWith('#')) out.push(`${path}: external $ref`);
    if (Array.isArray(n.enum) && n.enum.some((v) => typeof v === 'object' && v !== null)) out.push(`${path}: enum values must be primitives`);
  });
  return out;
}

const GEMINI_KEYS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum']);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const GEMINI_FORMATS: Record<string, string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };

/** Gemini's Schema object (a subset of OpenAPI 3.0) as function parameters. */
export function geminiSchemaProblems(schema: unknown): string[] {
  const out: string[] = [];
  if (!isNode(schema) || schema.type !== 'object') out.push('$: parameters must be an OBJECT schema');
  eachNode(schema, (n, path) => {
    for (const k of Object.keys(n)) if (!GEMINI_KEYS.has(k)) out.push(`${path}: field ${k} is not in Gemini's Schema`);
    if (n.type === undefined && !n.anyOf) out.push(`${path}: a schema needs a type`);
    if (n.type !== undefined && (typeof n.type !== 'string' || !GEMINI_TYPES.has(n.type))) out.push(`${path}: type must be one of ${[...GEMINI_TYPES].join(', ')}, got ${JSON.stringify(n.type)}`);
    if (n.type === 'object' && (!isNode(n.properties) || !Object.keys(n.properties).length)) out.push(`${path}: properties should be non-empty for OBJECT type`);
    if (n.properties !== undefined && n.type !== 'object') out.push(`${path}: properties only allowed for OBJECT type`);
    if (isNode(n.properties)) for (const k of Object.keys(n.properties)) if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) out.push(`${path}: parameter name ${k} must be letters, digits and _ (starting with a letter or _)`);
    if (Array.isArray(n.required) && n.required.some((r) => !isNode(n.properties) || !(String(r) in n.properties))) out.push(`${path}: required names a property that is not defined`);
    if (n.type === 'array' && !isNode(n.items)) out.push(`${path}: an ARRAY needs items`);
    if (n.enum !== undefined && (n.type !== 'string' || !Array.isArray(n.enum) || n.enum.some((v) => typeof v !== 'string'))) out.push(`${path}: enum is only for STRING with string values`);
    if (typeof n.format === 'string' && !(GEMINI_FORMATS[String(n.type)] ?? []).includes(n.format)) out.push(`${path}: format ${n.format} is not supported for ${String(n.type)}`);
    if (n.nullable !== undefined && typeof n.nullable !== 'boolean') out.push(`${path}: nullable must be a boolean`);
  });
  return out;
}

/** Problems of one converted declaration for `format` (`strict` as asked), or none. */
export function providerProblems(format: string, strict: boolean, decl: Node): string[] {
  const out: string[] = [];
  const name = (n: unknown, re: RegExp, rule: string) => {
    if (typeof n !== 'string' || !re.test(n)) out.push(`name ${JSON.stringify(n)} breaks the rule: ${rule}`);
  };
  const text = (d: unknown) => {
    if (typeof d !== 'string' || !d.length) out.push('description must be a non-empty string');
  };
  switch (format) {
    case 'openai': {
      const f = decl.function as Node;
      if (decl.type !== 'function' || !isNode(f)) return ['must be { type: "function", function: {...} }'];
      name(f.name, /^[a-zA-Z0-9_-]{1,64}$/, 'a-z, A-Z, 0-9, _ and -, at most 64');
      text(f.description);
      if (strict) {
        if (f.strict !== true) out.push('strict must be true');
        out.push(...openaiStrictSchemaProblems(f.parameters));
      } else if (!isNode(f.parameters) || f.parameters.type !== 'object') out.push('parameters must be an object schema');
      else if (compiles(f.parameters)) out.push(compiles(f.parameters)!);
      return out;
    }
    case 'openai-responses':
      if (decl.type !== 'function') return ['must be { type: "function", name, parameters, strict }'];
      name(decl.name, /^[a-zA-Z0-9_-]{1,64}$/, 'a-z, A-Z, 0-9, _ and -, at most 64');
      text(decl.description);
      if (typeof decl.strict !== 'boolean') out.push('strict must be given (the Responses API defaults to true)');
      if (decl.strict === true) out.push(...openaiStrictSchemaProblems(decl.parameters));
      else if (!isNode(decl.parameters) || decl.parameters.type !== 'object') out.push('parameters must be an object schema');
      return out;
    case 'anthropic':
      name(decl.name, /^[a-zA-Z0-9_-]{1,64}$/, 'a-z, A-Z, 0-9, _ and -, at most 64');
      text(decl.description);
      if (strict) {
        if (decl.strict !== true) out.push('strict must be true');
        out.push(...anthropicStrictSchemaProblems(decl.input_schema));
      } else if (!isNode(decl.input_schema) || decl.input_schema.type !== 'object') out.push('input_schema must be an object schema');
      else if (compiles(decl.input_schema)) out.push(compiles(decl.input_schema)!);
      return out;
    case 'gemini':
      name(decl.name, /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, 'starts with a letter or _; a-z, A-Z, 0-9, _, ., :, -; at most 64');
      text(decl.description);
      for (const k of Object.keys(decl)) if (!['name', 'description', 'parameters', 'response', 'behavior'].includes(k)) out.push(`field ${k} is not in FunctionDeclaration`);
      if (decl.parameters !== undefined) out.push(...geminiSchemaProblems(decl.parameters));
      return out;
    case 'mcp': {
      name(decl.name, /^[A-Za-z0-9_./-]{1,128}$/, 'A-Z, a-z, 0-9, _, -, . and /, 1 to 128 characters');
      const parsed = ToolSchema.safeParse(decl);
      if (!parsed.success) out.push(`not an MCP Tool: ${parsed.error.message}`);
      if (isNode(decl.outputSchema) && decl.outputSchema.type !== 'object') out.push('outputSchema must be an object schema');
      return out;
    }
    default:
      return [`unknown format ${format}`];
  }
}
