/**
 * The system-prompt fragment and the plan behind it: how an agent learns its tools at the least
 * context cost. Working in Python, it reads a skill index instead of every JSON schema — one line
 * per tool with its signature while that fits a budget, only the names per namespace beyond it
 * (signatures and docs come from `read_skill`). For a persona with few tools, where the Python
 * preamble alone outweighs the schemas it would replace, the fragment lists the tools to call
 * directly instead: it is never longer than the schemas of the tools it covers.
 */
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { firstSentence, functionNames, generateSkillIndex, groupByNamespace } from './codegen.ts';

/** `python`: signatures in the index; `python-names`: names only; `direct`: no Python, tools called as tools. */
export type PromptMode = 'python' | 'python-names' | 'direct';

/** Size of a fragment against the JSON schemas of the tools it covers, in characters. */
export interface PromptStats {
  promptChars: number;
  schemaChars: number;
  /** promptChars / schemaChars (0 when there is no schema). */
  ratio: number;
  /** How many tools the fragment covers. */
  tools: number;
  mode: PromptMode;
}

/** What an agent gets: the fragment, and which tools go to the model as native declarations. */
export interface PromptPlan {
  mode: PromptMode;
  text: string;
  /** Tools the model needs as native tool declarations next to the fragment (`execute_python` in Python modes; every tool in `direct`). */
  nativeTools: string[];
  stats: PromptStats;
}

/** Options of {@link planPrompt}. */
export interface PromptOptions {
  /** Tools the persona allows (declarations). */
  tools: readonly ToolDeclaration[];
  /** Persona name for the opening line. */
  personaName: string;
  /** Characters the signature index may take before the index lists names only. Default: 2500. */
  indexBudgetChars?: number;
}

/** The JSON schemas of `tools` as a provider would get them, in characters. */
export function schemaChars(tools: readonly ToolDeclaration[]): number {
  return tools.length ? JSON.stringify(tools.map((d) => ({ name: d.name, description: d.description, input_schema: d.inputSchema }))).length : 0;
}

/** One line per namespace with its function names: the index when signatures do not fit. */
export function generateNamesIndex(tools: readonly ToolDeclaration[]): string {
  return [...groupByNamespace(tools)].map(([ns, list]) => `${ns}: ${list.map((t) => functionNames(list).get(t.name)).join(', ')}`).join('\n');
}

/** The Python-mode fragment: how to call tools from Python, the result contract and the index. */
export function generateSystemPrompt(options: { tools: readonly ToolDeclaration[]; personaName: string; detail?: 'signatures' | 'names' }): string {
  const pythonTools = options.tools.filter((t) => t.pythonCallable);
  const names = options.detail === 'names';
  return [
    `You are ${options.personaName}, an agent running on Armature.`,
    '',
    'Work in Python: call `execute_python` with code. Inside Python, every tool below is a function:',
    '`from tools.<namespace> import <tool>`, or generically `call_tool("name", {"arg": value})`.',
    'Both return native Python data (dict, list, str, int, float, bool, None) and raise `ToolError` on failure.',
    'Fetch data inside Python with these functions and compute on it in the same run; never paste data into code.',
    '',
    '`execute_python` returns `{ ok: true, value, stdout, stderr }` or `{ ok: false, error: { type, message, traceback }, hint }`.',
    'When ok is false, read the hint, fix the code and retry — at most twice — before reporting the failure.',
    '',
    names
      ? 'Tools available from Python, by namespace; read a namespace\'s signatures and examples with `read_skill` before using it:'
      : 'Tools available from Python (read a namespace\'s full guide with `read_skill`):',
    names ? generateNamesIndex(pythonTools) : generateSkillIndex(pythonTools),
  ].join('\n');
}

/** The direct-mode fragment: the tools to call as tools, shortened until it fits `limit` characters. */
export function generateDirectPrompt(tools: readonly ToolDeclaration[], personaName: string, limit = Infinity): string {
  const candidates = [
    [
      `You are ${personaName}, an agent running on Armature. Call these tools directly; each answers { ok: true, value } or { ok: false, error, hint }:`,
      ...tools.map((t) => `- ${t.name} — ${firstSentence(t.description)}`),
    ].join('\n'),
    `You are ${personaName}, on Armature. Tools: ${tools.map((t) => t.name).join(', ')}.`,
    `Tools: ${tools.map((t) => t.name).join(', ')}.`,
  ];
  // The last candidate is shorter than any set of schemas naming the same tools.
  return candidates.find((c) => c.length <= limit) ?? candidates[candidates.length - 1]!;
}

/** Chooses the fragment for `tools` (see the module comment) and measures it. */
export function planPrompt(options: PromptOptions): PromptPlan {
  const { tools, personaName } = options;
  const budget = options.indexBudgetChars ?? 2500;
  const callable = tools.filter((t) => t.pythonCallable);
  const stats = (text: string, covered: readonly ToolDeclaration[], mode: PromptMode): PromptStats => {
    const schema = schemaChars(covered);
    return { promptChars: text.length, schemaChars: schema, ratio: schema ? text.length / schema : 0, tools: covered.length, mode };
  };
  if (tools.some((t) => t.name === 'execute_python') && callable.length) {
    const covered = schemaChars(callable);
    const nativeTools = tools.filter((t) => !t.pythonCallable).map((t) => t.name);
    if (generateSkillIndex(callable).length <= budget) {
      const text = generateSystemPrompt({ tools, personaName });
      if (text.length <= covered) return { mode: 'python', text, nativeTools, stats: stats(text, callable, 'python') };
    }
    const text = generateSystemPrompt({ tools, personaName, detail: 'names' });
    if (text.length <= covered) return { mode: 'python-names', text, nativeTools, stats: stats(text, callable, 'python-names') };
  }
  const text = generateDirectPrompt(tools, personaName, schemaChars(tools));
  return { mode: 'direct', text, nativeTools: tools.map((t) => t.name), stats: stats(text, tools, 'direct') };
}
