/**
 * Tool declarations in each model provider's format, and the way back from a provider's tool call
 * to the tool's own name and arguments. Pure functions over plain JSON: no Node or DOM import, so
 * the same code serves the CLI, the MCP server and agents in the browser.
 */
import { allowsNull, inlineRefs, isObject, normalizeNode, SchemaConversionError, typesOf, type JsonSchema } from './json-schema.ts';
import { toGeminiSchema } from './gemini-schema.ts';
import { needsJsonString, toStrictSchema } from './strict-schema.ts';
import { aliasNames, NAME_RULES, TOOL_FORMATS, toolNameFromProvider, type ToolFormat } from './tool-names.ts';

/** MCP tool annotations (hints; clients must not rely on them for security). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool needs to be converted: a subset of Armature's `ToolDeclaration`. */
export interface FormattableTool {
  name: string;
  description: string;
  /** A JSON Schema with `type: "object"`. */
  inputSchema: Record<string, unknown>;
  /** Shape of the tool's value, when known. Default: none. */
  outputSchema?: Record<string, unknown>;
  /** Default: none. */
  annotations?: ToolAnnotations;
}

/** Options of {@link formatTools}. */
export interface FormatOptions {
  /**
   * OpenAI strict mode (`openai`, `openai-responses`) or Anthropic's strict tool use (`anthropic`).
   * Not available for `gemini` and `mcp`. Default: false.
   */
  strict?: boolean;
}

/** How to read one provider name's arguments back (see {@link decodeToolCall}). */
export interface CallCodec {
  /** The tool's own name. */
  name: string;
  /** The input schema arguments are read against (`$ref`s inlined when the format needed it). */
  inputSchema: JsonSchema;
  /** Whether a `null` for a property that does not accept null means "not given" (OpenAI strict). */
  nullMeansAbsent: boolean;
  /** Whether maps and untyped values were declared as JSON strings (strict modes, Gemini). */
  jsonStrings: boolean;
}

/** Tools converted for one provider. */
export interface FormattedTools<T = JsonSchema> {
  format: ToolFormat;
  strict: boolean;
  /** The declarations, ready for the provider's request. */
  tools: T[];
  /** Provider name → tool name, for every name that had to be aliased. */
  aliases: Record<string, string>;
  /** Tools converted with less than asked (e.g. sent non-strict), and request limits exceeded. */
  warnings: string[];
  /** Provider name → how to decode its calls. */
  calls: Record<string, CallCodec>;
}

/** Bad arguments to {@link formatTools}. */
export class ToolFormatError extends Error {
  constructor(
    /** `UNKNOWN_FORMAT` or `STRICT_NOT_SUPPORTED`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolFormatError';
  }
}

const STRICT_FORMATS: readonly ToolFormat[] = ['openai', 'openai-responses', 'anthropic'];

/** The root without the keywords a provider has no use for. */
function looseSchema(schema: Record<string, unknown>): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return { ...rest, type: 'object' };
}

/** OpenAI strict mode's documented limits: 5,000 properties, 10 levels of nesting. */
function openaiLimitProblem(schema: JsonSchema): string | undefined {
  let props = 0;
  let depth = 0;
  const walk = (n: unknown, level: number) => {
    if (!isObject(n)) return;
    if (isObject(n.properties)) {
      depth = Math.max(depth, level);
      props += Object.keys(n.properties).length;
      for (const p of Object.values(n.properties)) walk(p, level + 1);
    }
    walk(n.items, level);
    if (Array.isArray(n.anyOf)) for (const b of n.anyOf) walk(b, level);
  };
  walk(schema, 1);
  if (props > 5000) return `${props} properties (strict mode allows 5000)`;
  if (depth > 10) return `${depth} levels of nesting (strict mode allows 10)`;
  return undefined;
}

/** Anthropic's per-request limits on strict tools: 20 tools, 24 optional and 16 union parameters in all. */
function anthropicRequestWarnings(schemas: JsonSchema[]): string[] {
  let optional = 0;
  let unions = 0;
  const walk = (n: unknown) => {
    if (!isObject(n)) return;
    if (Array.isArray(n.anyOf) || (Array.isArray(n.type) && n.type.length > 1)) unions++;
    if (isObject(n.properties)) {
      const required = new Set(Array.isArray(n.required) ? n.required : []);
      for (const [k, p] of Object.entries(n.properties)) {
        if (!required.has(k)) optional++;
        walk(p);
      }
    }
    walk(n.items);
    if (Array.isArray(n.anyOf)) n.anyOf.forEach(walk);
  };
  schemas.forEach(walk);
  const out: string[] = [];
  if (schemas.length > 20) out.push(`Anthropic accepts at most 20 strict tools per request; these are ${schemas.length}: send fewer, or send the rest without strict`);
  if (optional > 24) out.push(`Anthropic accepts at most 24 optional parameters across strict tools per request; these have ${optional}`);
  if (unions > 16) out.push(`Anthropic accepts at most 16 union-typed parameters across strict tools per request; these have ${unions}`);
  return out;
}

/**
 * Converts tool declarations to `format`. Names a provider rejects are aliased (see `aliases`);
 * a schema that cannot be made strict is sent non-strict with a warning; nothing throws except a
 * {@link ToolFormatError} for an unknown format or `strict` where the format has none.
 */
export function formatTools(tools: readonly FormattableTool[], format: ToolFormat, options: FormatOptions = {}): FormattedTools {
  if (!TOOL_FORMATS.includes(format)) throw new ToolFormatError('UNKNOWN_FORMAT', `unknown tool format ${JSON.stringify(format)}; use one of ${TOOL_FORMATS.join(', ')}`);
  const strict = options.strict ?? false;
  if (strict && !STRICT_FORMATS.includes(format))
    throw new ToolFormatError('STRICT_NOT_SUPPORTED', `--strict applies to ${STRICT_FORMATS.join(', ')}; ${format} has no strict mode`);
  const { names, aliases } = aliasNames(tools.map((t) => t.name), NAME_RULES[format]);
  const warnings: string[] = [];
  const calls: Record<string, CallCodec> = {};
  const strictSchemas: JsonSchema[] = [];
  const out = tools.map((tool, i): JsonSchema => {
    const name = names[i]!;
    const dialect = format === 'anthropic' ? 'anthropic' : 'openai';
    let parameters: JsonSchema | undefined = looseSchema(tool.inputSchema);
    let codec: CallCodec = { name: tool.name, inputSchema: parameters, nullMeansAbsent: false, jsonStrings: false };
    let toolStrict = false;
    if (strict || format === 'gemini') {
      try {
        const inlined = inlineRefs(parameters, { cycles: 'any' });
        if (format === 'gemini') {
          parameters = toGeminiSchema(inlined);
          codec = { name: tool.name, inputSchema: inlined, nullMeansAbsent: false, jsonStrings: true };
        } else {
          const converted = toStrictSchema(inlined, dialect);
          const problem = dialect === 'openai' ? openaiLimitProblem(converted) : undefined;
          if (problem) warnings.push(`${tool.name}: sent without strict: ${problem}`);
          else {
            parameters = converted;
            toolStrict = true;
            strictSchemas.push(converted);
            codec = { name: tool.name, inputSchema: inlined, nullMeansAbsent: dialect === 'openai', jsonStrings: true };
          }
        }
      } catch (e) {
        if (!(e instanceof SchemaConversionError)) throw e;
        warnings.push(`${tool.name}: ${e.message}; sent ${format === 'gemini' ? 'without parameters' : 'without strict'}`);
        if (format === 'gemini') parameters = undefined;
      }
    }
    calls[name] = codec;
    switch (format) {
      case 'openai':
        return { type: 'function', function: { name, description: tool.description, parameters, ...(strict ? { strict: toolStrict } : {}) } };
      case 'openai-responses':
        // The Responses API treats a function without `strict` as strict: always say which.
        return { type: 'function', name, description: tool.description, parameters, strict: toolStrict };
      case 'anthropic':
        return { name, description: tool.description, input_schema: parameters, ...(strict ? { strict: toolStrict } : {}) };
      case 'gemini':
        return parameters ? { name, description: tool.description, parameters } : { name, description: tool.description };
      case 'mcp':
        return {
          name,
          ...(tool.annotations?.title ? { title: tool.annotations.title } : {}),
          description: tool.description,
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
        };
    }
  });
  if (format === 'anthropic' && strict) warnings.push(...anthropicRequestWarnings(strictSchemas));
  return { format, strict, tools: out, aliases, warnings, calls };
}

/**
 * Reads a provider's tool call back: the tool's own name (aliases undone) and arguments as the
 * tool's schema expects them — `null` for an optional property OpenAI's strict mode made nullable
 * is dropped (the tool's default applies), and JSON strings declared for maps and untyped values
 * are parsed. Arguments may be the provider's JSON text or an object; the input is not modified.
 */
export function decodeToolCall(formatted: Pick<FormattedTools, 'aliases' | 'calls'>, providerName: string, args: unknown): { name: string; arguments: Record<string, unknown> } {
  const name = toolNameFromProvider(providerName, formatted.aliases);
  let value = args;
  if (typeof value === 'string') {
    try {
      value = value.trim() ? JSON.parse(value) : {};
    } catch {
      // Left as is: the ToolRunner reports it with the tool's schema.
    }
  }
  const codec = formatted.calls[providerName];
  const decoded = codec ? decodeArguments(codec.inputSchema, value ?? {}, codec) : value;
  return { name, arguments: (isObject(decoded) ? decoded : {}) as Record<string, unknown> };
}

/** Undoes the strict/Gemini encodings on `value` guided by the original schema; returns a copy. */
export function decodeArguments(schema: JsonSchema, value: unknown, codec: Pick<CallCodec, 'nullMeansAbsent' | 'jsonStrings'>): unknown {
  const n = normalizeNode(schema);
  if (codec.jsonStrings && typeof value === 'string' && needsJsonString(n)) {
    try {
      value = JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return isObject(n.items) ? value.map((v) => decodeArguments(n.items as JsonSchema, v, codec)) : value;
  if (!isObject(value) || !isObject(n.properties) || !typesOf(n).includes('object')) return value;
  const props = n.properties;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const p = props[k];
    if (!isObject(p)) out[k] = v;
    else if (v === null && codec.nullMeansAbsent && !allowsNull(normalizeNode(p))) continue;
    else out[k] = decodeArguments(p, v, codec);
  }
  return out;
}
