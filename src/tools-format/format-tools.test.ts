import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as z from 'zod';
import { decodeToolCall, formatTools, ToolFormatError, type FormattableTool } from './format-tools.ts';
import { aliasNames, NAME_RULES, TOOL_FORMATS, toolNameFromProvider } from './tool-names.ts';
import { inlineRefs, SchemaConversionError } from './json-schema.ts';
import { readManifests } from '../kernel/manifests.ts';
import { nodeProjectFiles, projectRoot } from '../platform/node.ts';
import { providerProblems } from '../../test/helpers/provider-rules.ts';

/** Tools with every shape the converters must handle. */
const TRICKY: FormattableTool[] = [
  {
    name: 'memory.create_entities',
    description: 'Create entities.',
    inputSchema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        entities: { type: 'array', items: { $ref: '#/$defs/Entity' }, minItems: 1 },
        mode: { type: 'string', enum: ['merge', 'replace'], default: 'merge' },
      },
      required: ['entities'],
      $defs: { Entity: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'] } },
    },
  },
  {
    name: 'everything.get-sum',
    description: 'Add two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number', minimum: 0 }, b: { type: ['number', 'null'] } }, required: ['a'] },
  },
  {
    name: `a.${'very_long_tool_name_'.repeat(5)}`,
    description: 'A name past 64 characters.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'shapes',
    description: 'Unions, maps, constants and formats.',
    inputSchema: {
      type: 'object',
      properties: {
        meta: { type: 'object', description: 'Anything.' },
        counts: { type: 'object', additionalProperties: { type: 'integer' } },
        raw: {},
        list: { type: 'array' },
        choice: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        maybe: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
        fixed: { const: 'v1' },
        level: { type: 'integer', enum: [1, 2, 3] },
        when: { type: 'string', format: 'date-time' },
        both: { allOf: [{ type: 'object', properties: { x: { type: 'string' } }, required: ['x'] }, { properties: { y: { type: 'boolean' } } }] },
        re: { type: 'string', pattern: '^(a)\\1$' },
      },
      required: ['choice'],
    },
  },
  {
    name: 'tree',
    description: 'A recursive schema.',
    inputSchema: { type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, $defs: { Node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } } },
  },
];

test('every built-in tool, converted to every format, keeps each provider’s published rules', async () => {
  const m = await readManifests(nodeProjectFiles(projectRoot));
  const tools = [...m.tools.values()];
  for (const format of TOOL_FORMATS) {
    for (const strict of format === 'gemini' || format === 'mcp' ? [false] : [false, true]) {
      const r = formatTools(tools, format, { strict });
      assert.equal(r.tools.length, tools.length);
      for (const decl of r.tools) assert.deepEqual(providerProblems(format, strict, decl), [], `${format}${strict ? ' strict' : ''}: ${JSON.stringify(decl)}`);
    }
  }
});

test('unions, maps, $refs, recursion, long and dotted names all convert within the rules', () => {
  for (const format of TOOL_FORMATS) {
    for (const strict of format === 'gemini' || format === 'mcp' ? [false] : [false, true]) {
      const r = formatTools(TRICKY, format, { strict });
      for (const decl of r.tools) assert.deepEqual(providerProblems(format, strict, decl), [], `${format}${strict ? ' strict' : ''}: ${JSON.stringify(decl)}`);
    }
  }
});

test('names a provider rejects are aliased, stably and uniquely, and map back', () => {
  const r = formatTools(TRICKY, 'openai');
  const names = r.tools.map((t) => (t.function as { name: string }).name);
  assert.equal(names[0], 'memory__create_entities');
  assert.equal(names[1], 'everything__get-sum');
  assert.ok(names[2]!.length <= 64 && /_[0-9a-f]{8}$/.test(names[2]!), names[2]);
  assert.equal(names[3], 'shapes');
  assert.deepEqual(Object.keys(r.aliases).sort(), [names[0], names[1], names[2]].sort());
  for (const [i, n] of names.entries()) assert.equal(toolNameFromProvider(n, r.aliases), TRICKY[i]!.name);
  assert.deepEqual(formatTools(TRICKY, 'openai').aliases, r.aliases, 'the same names give the same aliases');
  // Gemini allows dots; MCP allows both: no alias there.
  assert.equal((formatTools(TRICKY, 'gemini').tools[0] as { name: string }).name, 'memory.create_entities');
  assert.deepEqual(formatTools(TRICKY, 'mcp').aliases, {});
  // An alias never takes a name another tool already has.
  const clash = aliasNames(['a.b', 'a__b'], NAME_RULES.openai);
  assert.equal(clash.names[1], 'a__b');
  assert.match(clash.names[0]!, /^a__b_[0-9a-f]{8}$/);
});

test('OpenAI strict: every property required, optional ones nullable, objects closed, dropped keywords noted', () => {
  const r = formatTools(TRICKY, 'openai', { strict: true });
  const fn = r.tools[0]!.function as { strict: boolean; parameters: Record<string, any> };
  assert.equal(fn.strict, true);
  const p = fn.parameters;
  assert.deepEqual(p.required, ['entities', 'mode']);
  assert.equal(p.additionalProperties, false);
  assert.deepEqual(p.properties.mode.type, ['string', 'null']);
  assert.deepEqual(p.properties.mode.enum, ['merge', 'replace', null]);
  assert.match(p.properties.mode.description, /default: "merge"/);
  assert.equal(p.properties.entities.minItems, 1, 'minItems is supported in strict mode');
  const entity = p.properties.entities.items;
  assert.deepEqual(entity.required, ['name', 'tags']);
  assert.match(entity.properties.name.description, /minLength: 1/);
  assert.equal(entity.properties.name.minLength, undefined);
  const shapes = (r.tools[3]!.function as { parameters: Record<string, any> }).parameters.properties;
  assert.deepEqual(shapes.meta.type, ['string', 'null']);
  assert.match(shapes.meta.description, /^Anything\. \(a JSON object, encoded as a string\)$/);
  assert.deepEqual(shapes.choice, { anyOf: [{ type: 'string' }, { type: 'integer' }] }, 'oneOf becomes anyOf; a required property stays non-null');
  assert.deepEqual(shapes.fixed.enum, ['v1', null]);
  assert.match(shapes.maybe.anyOf[0].description, /format: "uri"/);
});

test('Anthropic strict keeps optional properties optional; Gemini says nullable and drops what it cannot say', () => {
  const a = formatTools(TRICKY, 'anthropic', { strict: true }).tools[1] as { input_schema: Record<string, any>; strict: boolean };
  assert.equal(a.strict, true);
  assert.deepEqual(a.input_schema.required, ['a']);
  assert.equal(a.input_schema.properties.a.minimum, undefined);
  assert.match(a.input_schema.properties.a.description, /minimum: 0/);
  const g = formatTools(TRICKY, 'gemini').tools;
  const sum = (g[1] as { parameters: Record<string, any> }).parameters;
  assert.deepEqual(sum.properties.b, { type: 'number', nullable: true });
  assert.equal(sum.properties.a.minimum, 0);
  assert.equal((g[2] as { parameters?: unknown }).parameters, undefined, 'no parameters: Gemini rejects an empty OBJECT');
  const shapes = (g[3] as { parameters: Record<string, any> }).parameters.properties;
  assert.deepEqual(shapes.maybe.nullable, true);
  assert.equal(shapes.level.type, 'integer');
  assert.match(shapes.level.description, /one of 1, 2, 3/);
  assert.equal(shapes.when.format, 'date-time');
  assert.deepEqual(Object.keys(shapes.both.properties), ['x', 'y']);
});

test('a provider call decodes to the tool’s own name and arguments its schema accepts', () => {
  const r = formatTools(TRICKY, 'openai', { strict: true });
  const original = z.fromJSONSchema(inlineRefs(TRICKY[0]!.inputSchema) as Parameters<typeof z.fromJSONSchema>[0]);
  const call = decodeToolCall(r, 'memory__create_entities', JSON.stringify({ entities: [{ name: 'Ada', tags: null }], mode: null }));
  assert.deepEqual(call, { name: 'memory.create_entities', arguments: { entities: [{ name: 'Ada' }] } });
  assert.ok(original.safeParse(call.arguments).success, 'the ToolRunner would accept it');
  const shapes = decodeToolCall(r, 'shapes', { choice: 3, meta: '{"k":[1,2]}', counts: '{"a":1}', raw: '"text"', list: '[1,"x"]', maybe: null, fixed: null, level: null, when: null, both: null, re: null });
  assert.deepEqual(shapes.arguments, { choice: 3, meta: { k: [1, 2] }, counts: { a: 1 }, raw: 'text', list: [1, 'x'], maybe: null }, 'maybe accepts null: kept');
  // A nullable property keeps its null: the tool asked for one.
  assert.deepEqual(decodeToolCall(r, 'everything__get-sum', { a: 1, b: null }).arguments, { a: 1, b: null });
  // Non-strict formats pass arguments through.
  const loose = formatTools(TRICKY, 'anthropic');
  assert.deepEqual(decodeToolCall(loose, 'shapes', { meta: '{"k":1}', choice: 'x' }).arguments, { meta: '{"k":1}', choice: 'x' });
  // Gemini: JSON strings parsed, nulls kept.
  assert.deepEqual(decodeToolCall(formatTools(TRICKY, 'gemini'), 'shapes', { meta: '{"k":1}', choice: 'x' }).arguments, { meta: { k: 1 }, choice: 'x' });
});

test('recursion: inlined as far as it goes, the recursive point travels as JSON; bad options are named errors', () => {
  assert.throws(() => inlineRefs(TRICKY[4]!.inputSchema), (e: unknown) => e instanceof SchemaConversionError && /recursive \$ref "#\/\$defs\/Node"/.test(e.message));
  assert.throws(() => inlineRefs({ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } }), /external \$ref/);
  const r = formatTools(TRICKY, 'openai', { strict: true });
  const tree = (r.tools[4]!.function as { parameters: Record<string, any> }).parameters;
  assert.deepEqual(tree.properties.root.properties.children.items, { type: 'string', description: 'recursive: the same shape as #/$defs/Node (any JSON value, encoded as a string)' });
  const call = decodeToolCall(r, 'tree', { root: { label: 'a', children: ['{"label":"b"}'] } });
  assert.deepEqual(call.arguments, { root: { label: 'a', children: [{ label: 'b' }] } });
  assert.throws(() => formatTools(TRICKY, 'cohere' as never), (e: unknown) => e instanceof ToolFormatError && e.code === 'UNKNOWN_FORMAT' && /use one of openai, openai-responses, anthropic, gemini, mcp/.test(e.message));
  assert.throws(() => formatTools(TRICKY, 'gemini', { strict: true }), (e: unknown) => e instanceof ToolFormatError && e.code === 'STRICT_NOT_SUPPORTED');
});

test('Responses API tools always say strict; Anthropic strict warns past its per-request limits', () => {
  const loose = formatTools(TRICKY, 'openai-responses');
  assert.ok(loose.tools.every((t) => t.strict === false && t.type === 'function' && typeof t.name === 'string'));
  const many = Array.from({ length: 21 }, (_, i) => ({ ...TRICKY[1]!, name: `t${i}` }));
  const r = formatTools(many, 'anthropic', { strict: true });
  assert.match(r.warnings.join('\n'), /at most 20 strict tools per request; these are 21/);
  assert.deepEqual(formatTools(TRICKY.slice(0, 2), 'anthropic', { strict: true }).warnings, []);
});

test('MCP keeps the tool as declared, with its output schema and annotations', () => {
  const tool: FormattableTool = { ...TRICKY[1]!, outputSchema: { type: 'object', properties: { sum: { type: 'number' } } }, annotations: { readOnlyHint: true, title: 'Sum' } };
  const [decl] = formatTools([tool], 'mcp').tools;
  assert.deepEqual(decl, { name: 'everything.get-sum', title: 'Sum', description: 'Add two numbers.', inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations });
});

test('the provider rule checks reject what the providers reject', () => {
  const raw = TRICKY[0]!;
  const problems = providerProblems('openai', true, { type: 'function', function: { name: raw.name, description: raw.description, parameters: raw.inputSchema, strict: true } });
  assert.ok(problems.some((p) => /name "memory\.create_entities" breaks the rule/.test(p)));
  assert.ok(problems.some((p) => /additionalProperties must be false/.test(p)));
  assert.ok(problems.some((p) => /every property must be required/.test(p)));
  assert.ok(problems.some((p) => /keyword \$schema is not supported/.test(p)));
  const gemini = providerProblems('gemini', false, { name: '1x', description: 'd', parameters: { type: 'object', properties: { a: { type: ['string', 'null'] }, b: { type: 'object' }, c: { type: 'integer', enum: [1] } }, additionalProperties: false } });
  assert.deepEqual(gemini.length, 5, gemini.join('\n'));
  assert.ok(providerProblems('anthropic', true, { name: 'x', description: 'd', strict: true, input_schema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, additionalProperties: false } }).some((p) => /minimum is not supported/.test(p)));
  assert.ok(providerProblems('mcp', false, { name: 'x', description: 'd', inputSchema: { type: 'string' } }).some((p) => /not an MCP Tool/.test(p)));
});
