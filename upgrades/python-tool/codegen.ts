/**
 * Generates, from the tool manifests alone, what an agent needs to use tools from Python:
 * an importable module per tool namespace (`from tools.workspace import read_file`) with real
 * signatures, defaults and docstrings; a compact skill index; a SKILL.md per namespace with
 * Python examples; and the system-prompt fragment. Nothing here is written by hand per tool.
 */
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { namespaceOf, namespaceOfTool } from '../../src/kernel/namespaces.ts';

/** JSON Schema fields the generator reads. */
interface PropSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  items?: PropSchema;
}

/** One parameter of a generated function. */
export interface PyParam {
  /** The JSON property name sent to the tool. */
  name: string;
  /** The Python identifier (differs when `name` is a keyword or not an identifier). */
  ident: string;
  required: boolean;
  pyType: string;
  /** Python literal of the default; `None` means "omit when not given" for optional params. */
  defaultLiteral: string;
  description: string;
}

const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type'.split(' '),
);

export { namespaceOf, namespaceOfTool };

/** A tool's name inside its namespace: `memory.create_entities` → `create_entities`. */
export function localNameOf(tool: Pick<ToolDeclaration, 'name' | 'namespace'>): string {
  const ns = tool.namespace;
  return ns && tool.name.startsWith(`${ns}.`) ? tool.name.slice(ns.length + 1) : tool.name;
}

/** A Python identifier for `name`: other characters become `_` (`get-sum` → `get_sum`), keywords get a `_`. */
export function pythonIdentifier(name: string): string {
  let ident = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z_]/.test(ident)) ident = `_${ident}`;
  return PY_KEYWORDS.has(ident) ? `${ident}_` : ident;
}

/**
 * The Python function name of each tool of one namespace, by tool name: its local name as an
 * identifier. When two tools would get the same one (`get_sum`, `get-sum`), the tool already
 * named so keeps it and the other gets `_2`, `_3`...
 */
export function functionNames(tools: readonly ToolDeclaration[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  const exact = (t: ToolDeclaration) => pythonIdentifier(localNameOf(t)) === localNameOf(t);
  for (const t of [...tools.filter(exact), ...tools.filter((t) => !exact(t))]) {
    const base = pythonIdentifier(localNameOf(t));
    let ident = base;
    for (let i = 2; used.has(ident); i++) ident = `${base}_${i}`;
    used.add(ident);
    out.set(t.name, ident);
  }
  return new Map(tools.map((t) => [t.name, out.get(t.name)!]));
}

/** Tools grouped by namespace, namespaces and tools sorted by name. */
export function groupByNamespace(tools: readonly ToolDeclaration[]): Map<string, ToolDeclaration[]> {
  const out = new Map<string, ToolDeclaration[]>();
  for (const t of [...tools].sort((a, b) => localNameOf(a).localeCompare(localNameOf(b)) || (a.name < b.name ? -1 : 1))) {
    const ns = namespaceOfTool(t);
    out.set(ns, [...(out.get(ns) ?? []), t]);
  }
  return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

function pyType(s: PropSchema): string {
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (t) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'array':
      return `list[${s.items ? pyType(s.items) : 'Any'}]`;
    case 'object':
      return 'dict[str, Any]';
    default:
      return 'Any';
  }
}

/** A Python literal for a JSON value. */
export function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : `float(${JSON.stringify(String(v))})`;
  if (typeof v === 'string') return JSON.stringify(v); // JSON string escapes are valid Python
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${JSON.stringify(k)}: ${pyLiteral(x)}`).join(', ')}}`;
}

/** The parameters of a tool, required ones first (in schema order), then optional ones. */
export function paramsOf(tool: ToolDeclaration): PyParam[] {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, PropSchema>;
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const params = Object.entries(props).map(([name, s]): PyParam => {
    let ident = name.replace(/[^A-Za-z0-9_]/g, '_');
    if (/^[0-9]/.test(ident)) ident = `_${ident}`;
    if (PY_KEYWORDS.has(ident)) ident = `${ident}_`;
    const enumNote = s.enum ? ` One of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}.` : '';
    return {
      name,
      ident,
      required: required.has(name),
      pyType: pyType(s),
      defaultLiteral: s.default === undefined ? 'None' : pyLiteral(s.default),
      description: `${s.description ?? ''}${enumNote}`.trim(),
    };
  });
  return [...params.filter((p) => p.required), ...params.filter((p) => !p.required)];
}

/** `read_file(path, encoding="utf8")` — the call as an agent writes it. Default `fn`: the tool's function name. */
export function signatureOf(tool: ToolDeclaration, fn = pythonIdentifier(localNameOf(tool))): string {
  return `${fn}(${paramsOf(tool)
    .map((p) => (p.required ? p.ident : `${p.ident}=${p.defaultLiteral}`))
    .join(', ')})`;
}

function docstring(tool: ToolDeclaration, params: PyParam[], indent: string, instances: readonly string[] = []): string {
  const lines = [tool.description, ''];
  lines.push('Args:');
  for (const p of params) lines.push(`    ${p.ident}: ${p.description || p.pyType}${p.required ? '' : ` Default: ${p.defaultLiteral}.`}`);
  lines.push(
    instances.length
      ? `    instance_id: which instance to use, one of ${instances.map((i) => JSON.stringify(i)).join(', ')} (required: this tool has several).`
      : '    instance_id: for tools registered several times; leave it out here.',
  );
  lines.push('');
  lines.push(`Returns the tool's value (dict/list/str/...). Raises ToolError when the tool fails.`);
  return `${indent}"""${lines.map((l, i) => (i === 0 || !l ? l : indent + l)).join('\n').replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"')}\n${indent}"""`;
}

/** Instance ids by tool name, for tools registered several times. */
export type ToolInstances = ReadonlyMap<string, readonly string[]>;

/**
 * Python source of the module `tools.<namespace>`. Every function calls its tool through
 * `call_tool` — agent-made Python tools too, whose code runs in an interpreter of its own
 * (0x000081) — and takes a keyword-only `instance_id` that picks one registration of a tool
 * registered several times.
 */
export function generatePythonModule(namespace: string, tools: readonly ToolDeclaration[], instances: ToolInstances = new Map()): string {
  const fns = functionNames(tools);
  const out = [
    `"""Armature tools in the ${namespace} namespace, generated from the registered tool declarations. Do not edit.`,
    '',
    `Each function calls the tool of the same name through call_tool(); keyword arguments are checked`,
    `by Python itself, and optional arguments left at None are not sent (the tool's default applies).`,
    '"""',
    'from typing import Any',
    'from armature_bridge import call_tool as _call_tool',
    '',
    `__all__ = [${tools.map((t) => JSON.stringify(fns.get(t.name))).join(', ')}]`,
    '',
  ];
  for (const t of tools) {
    const params = paramsOf(t);
    const sig = params.map((p) => (p.required ? `${p.ident}: ${p.pyType}` : `${p.ident}: ${p.pyType} | None = ${p.defaultLiteral}`));
    sig.push('*', 'instance_id: str | None = None');
    out.push('');
    out.push(`def ${fns.get(t.name)}(${sig.join(', ')}) -> Any:`);
    out.push(docstring(t, params, '    ', instances.get(t.name)));
    out.push('    _args: dict[str, Any] = {}');
    for (const p of params) {
      if (p.required) out.push(`    _args[${JSON.stringify(p.name)}] = ${p.ident}`);
      else out.push(`    if ${p.ident} is not None:\n        _args[${JSON.stringify(p.name)}] = ${p.ident}`);
    }
    out.push(`    return _call_tool(${JSON.stringify(t.name)}, _args, instance_id=instance_id)`);
    out.push('');
  }
  return out.join('\n');
}

/** One line per tool: the compact index an agent always sees. */
export function generateSkillIndex(tools: readonly ToolDeclaration[]): string {
  const lines: string[] = [];
  for (const [ns, list] of groupByNamespace(tools)) {
    const fns = functionNames(list);
    lines.push(`${ns}: from tools.${ns} import ${list.map((t) => fns.get(t.name)).join(', ')}`);
    for (const t of list) lines.push(`  - ${signatureOf(t, fns.get(t.name))} — ${firstSentence(t.description)}`);
  }
  return lines.join('\n');
}

/** The first sentence of `text` (all of it when it has no sentence end). */
export function firstSentence(text: string): string {
  const m = /^(.*?[.!?])(\s|$)/.exec(text);
  return m ? m[1]! : text;
}

function exampleArgs(tool: ToolDeclaration): string {
  return paramsOf(tool)
    .filter((p) => p.required)
    .map((p) => `${p.ident}=${exampleValue(p)}`)
    .join(', ');
}

function exampleValue(p: PyParam): string {
  if (/path/.test(p.name)) return '"notes/example.txt"';
  if (p.name === 'id') return '"0x000031"';
  if (p.name === 'code') return '"print(1 + 1)"';
  if (p.name === 'package') return '"my-package"';
  switch (p.pyType) {
    case 'str':
      return `"${p.name}"`;
    case 'int':
      return '1';
    case 'float':
      return '1.0';
    case 'bool':
      return 'True';
    default:
      return p.pyType.startsWith('list') ? '[]' : '{}';
  }
}

/** The full SKILL.md of one namespace, with Python usage examples. */
export function generateSkillDoc(namespace: string, tools: readonly ToolDeclaration[], instances: ToolInstances = new Map()): string {
  const fns = functionNames(tools);
  const out = [
    `# Skill: ${namespace}`,
    '',
    `Generated from the tool declarations. Use these tools from Python inside \`execute_python\`:`,
    '',
    '```python',
    `from tools.${namespace} import ${tools.map((t) => fns.get(t.name)).join(', ')}`,
    '```',
    '',
    'Each function returns native Python data and raises `ToolError` (with `.tool`, `.code`, `.message`, `.hint`) on failure.',
    '',
  ];
  for (const t of tools) {
    const params = paramsOf(t);
    const fn = fns.get(t.name)!;
    out.push(`## ${signatureOf(t, fn)}`, '', t.description, '');
    if (fn !== t.name) out.push(`Tool name: \`${t.name}\` (for \`call_tool\`).`, '');
    if (params.length) {
      out.push('| argument | type | required | default | meaning |', '|---|---|---|---|---|');
      for (const p of params)
        out.push(`| \`${p.ident}\` | ${p.pyType} | ${p.required ? 'yes' : 'no'} | ${p.required ? '' : `\`${p.defaultLiteral}\``} | ${p.description.replace(/\|/g, '\\|')} |`);
      out.push('');
    }
    if (!t.pythonCallable) {
      out.push('_Not callable from Python: ask for it as a tool call instead._', '');
      continue;
    }
    const ids = instances.get(t.name) ?? [];
    if (ids.length) out.push(`Instances: ${ids.map((i) => `\`${i}\``).join(', ')} — pass \`instance_id=\` to choose.`, '');
    const args = [exampleArgs(t), ids.length ? `instance_id=${JSON.stringify(ids[0])}` : ''].filter(Boolean).join(', ');
    out.push('```python', `from tools.${namespace} import ${fn}`, '', `result = ${fn}(${args})`, 'print(result)', '```', '');
  }
  return out.join('\n');
}
