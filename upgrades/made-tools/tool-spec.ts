/**
 * What an agent-made tool is, as stored in a version: its declaration, its code, its tests and
 * the allow-list of the persona that made it. Here are the rules its name and fields follow, and
 * the one conversion from `create_tool` / `update_tool` arguments to that content.
 */
import { MAX_NAME_LENGTH, quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { kebabCase } from '../../src/contracts/made-names.ts';
import type { Persona, ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { namespaceOfTool } from '../../src/kernel/namespaces.ts';
import { compileInputSchema } from '../../src/kernel/tool-schema.ts';

/** Id of the upgrade that runs agent-made tools (their declarations' `module`). */
export const MADE_TOOLS_ID = 'MadeTools';

/** The namespace of agent-made tools when their name has none: `from tools.made import ...`. */
export const DEFAULT_NAMESPACE = 'made';

/** Languages an agent-made tool can be written in. */
export type ToolLanguage = 'python' | 'javascript';

/** One test of a tool: its arguments, and what it must return or the error it must raise. No expectation: it must succeed. */
export interface ToolTestSpec {
  args: Record<string, unknown>;
  expect?: unknown;
  expect_error?: string;
}

/** The content of one version of an agent-made tool. */
export interface MadeToolContent {
  /** Full tool name, `<namespace>.<tool>`, e.g. `made.word_count`. */
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  language: ToolLanguage;
  code: string;
  tests: ToolTestSpec[];
  /** The persona that made it and its allow-list at the time: the most the tool's `call_tool` may reach. */
  persona: { id: string; tools: string[] };
}

/** Largest code of a tool, in characters. */
export const MAX_CODE_CHARS = 200_000;
/** Most tests a version may bring. */
export const MAX_TESTS = 50;

const PART = /^[a-z][a-z0-9_]{0,63}$/;

/** Python keywords: a tool is a Python function too, so its name cannot be one. */
const PY_KEYWORDS = new Set('false none true and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type'.split(' '));

/** A tool name an agent gave, refused with what to write instead (its snake_case spelling when that is one). */
function badName(name: unknown, why: string): ArmatureError {
  const snake = typeof name === 'string' && name.length <= MAX_NAME_LENGTH ? name.split('.').map((p) => kebabCase(p).replace(/-/g, '_')).join('.') : '';
  const usable = snake && snake !== name && snake.split('.').length <= 2 && snake.split('.').every((p) => PART.test(p) && !PY_KEYWORDS.has(p));
  return new ArmatureError('INVALID_TOOL_NAME', `[made-tools] tool name ${quote(name)} ${why}${usable ? `; did you mean ${quote(snake)}?` : ''}`, {
    hint: 'Name it in snake_case, e.g. "word_count" (it becomes made.word_count), or "<namespace>.<tool>" for a namespace of your own, e.g. "text.word_count": tool names are snake_case so that each is a Python function too (from tools.made import word_count).',
  });
}

/** `word_count` -> `made.word_count`; `text.word_count` stays. Throws `INVALID_TOOL_NAME`. */
export function fullToolName(name: unknown): string {
  if (typeof name !== 'string') throw badName(name, 'is not a string');
  // The length first: a 10 MB name of dots would split into millions of parts.
  if (name.length > MAX_NAME_LENGTH) throw badName(name, `is ${name.length} characters long: names have at most ${MAX_NAME_LENGTH} characters`);
  const parts = name.split('.');
  if (parts.length > 2 || !parts.every((p) => PART.test(p))) throw badName(name, 'is not snake_case words (letters, digits, _; starting with a letter; at most one dot)');
  if (parts.some((p) => PY_KEYWORDS.has(p))) throw badName(name, 'is a Python keyword, which cannot name a Python function or module');
  return parts.length === 2 ? name : `${DEFAULT_NAMESPACE}.${name}`;
}

/** `made.word_count` -> `word_count`, the function name in Python and the name in `from tools.made import`. */
export function localToolName(full: string): string {
  return full.slice(full.indexOf('.') + 1);
}

/** `made.word_count` -> `made`. */
export function namespaceOfName(full: string): string {
  return full.slice(0, full.indexOf('.'));
}

/**
 * Refuses a name that would shadow a tool not made by an agent: its full name registered by an
 * upgrade, its own name (after the dot) equal to a built-in tool's name or own name, or its
 * namespace one that built-in tools use. `others` are the declarations of every registered tool.
 */
export function checkNotShadowing(full: string, others: readonly ToolDeclaration[]): void {
  const builtIn = others.filter((d) => d.module !== MADE_TOOLS_ID);
  const local = localToolName(full);
  const ns = namespaceOfName(full);
  const clash = builtIn.find((d) => d.name === full || d.name === local || (d.namespace !== undefined && d.name.slice(d.namespace.length + 1) === local));
  if (clash) {
    throw new ArmatureError('TOOL_NAME_TAKEN', `[made-tools] ${full} would shadow the built-in tool ${clash.name} (from ${clash.module})`, {
      hint: `Choose another name than ${quote(local)}; built-in tools cannot be replaced.`,
      details: { name: full, shadows: clash.name },
    });
  }
  const nsOwner = builtIn.find((d) => namespaceOfTool(d) === ns);
  if (nsOwner) {
    throw new ArmatureError('TOOL_NAME_TAKEN', `[made-tools] the namespace ${quote(ns)} belongs to built-in tools (${nsOwner.module})`, {
      hint: `Leave the namespace out (the tool goes to "${DEFAULT_NAMESPACE}") or choose one of your own.`,
    });
  }
}

/** The fields of `create_tool` / `update_tool` (`update_tool` may leave any but `name` out). */
export interface ToolArgs {
  name: unknown;
  description?: unknown;
  input_schema?: unknown;
  language?: unknown;
  code?: unknown;
  tests?: unknown;
}

/**
 * The content of a new version from the tool call's arguments, completed from `base` (the
 * previous version, for `update_tool`). Only checks what makes it a version at all (types and the
 * name); whether it is a good version is its gate's business ({@link staticProblems}, the tests).
 */
export function toContent(args: ToolArgs, persona: Pick<Persona, 'id' | 'tools'>, base?: MadeToolContent): MadeToolContent {
  const name = fullToolName(args.name);
  const pick = <T>(key: keyof ToolArgs, fallback: T | undefined): T => {
    const v = args[key] ?? fallback;
    if (v === undefined) throw new ArmatureError('INVALID_ARGUMENTS', `[made-tools] ${key} is missing`, { hint: `Give ${key}.` });
    return v as T;
  };
  return {
    name,
    description: String(pick('description', base?.description)),
    input_schema: pick('input_schema', base?.input_schema),
    language: pick('language', base?.language),
    code: String(pick('code', base?.code)),
    tests: pick('tests', base?.tests),
    persona: { id: persona.id, tools: [...persona.tools] },
  };
}

/** What is wrong with a version before any test runs, each a sentence with the fix; empty when nothing. */
export function staticProblems(c: MadeToolContent, languages: readonly ToolLanguage[]): string[] {
  const problems: string[] = [];
  if (!c.description.trim()) problems.push('description is empty: say in a sentence what the tool does.');
  if (c.language !== 'python' && c.language !== 'javascript') problems.push(`language ${quote(c.language)} is not "python" or "javascript".`);
  else if (!languages.includes(c.language)) problems.push(`this persona cannot run ${c.language} tools (${c.language === 'python' ? 'it does not load PythonTool' : 'no confined worker'}); write it in ${languages.join(' or ') || 'nothing'}.`);
  if (!c.code.trim()) problems.push('code is empty.');
  else if (c.code.length > MAX_CODE_CHARS) problems.push(`code is ${c.code.length} characters; at most ${MAX_CODE_CHARS}.`);
  const schema = c.input_schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || schema.type !== 'object') problems.push('input_schema must be a JSON Schema object with "type": "object", e.g. {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}.');
  else {
    try {
      compileInputSchema(schema);
    } catch (e) {
      problems.push(`input_schema is not a usable JSON Schema: ${(e as Error).message.slice(0, 300)}`);
    }
  }
  if (!Array.isArray(c.tests)) problems.push('tests must be a list of { args, expect? } or { args, expect_error }.');
  else {
    if (c.tests.length > MAX_TESTS) problems.push(`${c.tests.length} tests; at most ${MAX_TESTS}.`);
    c.tests.forEach((t, i) => {
      if (!t || typeof t !== 'object' || !t.args || typeof t.args !== 'object' || Array.isArray(t.args)) problems.push(`tests[${i}].args must be an object of the tool's arguments.`);
      else if ('expect' in t && 'expect_error' in t) problems.push(`tests[${i}] has both expect and expect_error: a test expects a value or an error, not both.`);
      else if ('expect_error' in t && typeof t.expect_error !== 'string') problems.push(`tests[${i}].expect_error must be a string: an error code or a part of the message.`);
    });
  }
  return problems;
}

/** The ToolRunner declaration of a version. */
export function declarationOf(c: MadeToolContent, timeoutMs: number): ToolDeclaration {
  return {
    name: c.name,
    namespace: namespaceOfName(c.name),
    description: c.description,
    inputSchema: c.input_schema as ToolDeclaration['inputSchema'],
    module: MADE_TOOLS_ID,
    pythonCallable: true,
    timeoutMs,
  };
}
