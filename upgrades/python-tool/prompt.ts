/**
 * The system-prompt fragment and the plan behind it: how an agent learns its tools at the least
 * context cost. Working in Python, it reads a skill index instead of every JSON schema. Each
 * namespace is shown at one of three levels — its tools' signatures, their names (`from tools.x
 * import ...`), or a count (`read_skill` lists them) — the richest that keep the fragment within
 * its allowance: 5% of the schemas it replaces, but never less than 1,000 characters (below that,
 * saving more is pointless). Cheaper namespaces are upgraded first. For a persona with few tools,
 * where even the shortest Python fragment outweighs their schemas, it lists the tools to call
 * directly instead: the fragment is never longer than the schemas of the tools it covers.
 */
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { firstSentence, functionNames, groupByNamespace, signatureOf } from './codegen.ts';

/** `python`: every namespace with signatures; `python-compact`: some shortened to names or counts; `direct`: tools called as tools. */
export type PromptMode = 'python' | 'python-compact' | 'direct';

/** How much of a namespace the index shows. */
export type IndexDetail = 'signatures' | 'names' | 'count';

/** Size of a fragment against the JSON schemas of the tools it covers, in characters. */
export interface PromptStats {
  promptChars: number;
  schemaChars: number;
  /** promptChars / schemaChars (0 when there is no schema). */
  ratio: number;
  /** How many tools the fragment covers. */
  tools: number;
  mode: PromptMode;
  /** How each namespace is shown (Python modes). */
  detail: Record<string, IndexDetail>;
}

/** What an agent gets: the fragment, and which tools go to the model as native declarations. */
export interface PromptPlan {
  mode: PromptMode;
  text: string;
  /** Tools the model needs as native declarations next to the fragment (those Python cannot call in Python modes; every tool in `direct`). */
  nativeTools: string[];
  stats: PromptStats;
}

/** Options of {@link planPrompt}. */
export interface PromptOptions {
  /** Tools the persona allows (declarations). */
  tools: readonly ToolDeclaration[];
  /** Persona name for the opening line. */
  personaName: string;
  /** Share of the replaced schemas' size the fragment aims at. Default: 0.05. */
  targetRatio?: number;
  /** Allowance of the fragment however small the schemas, in characters: enough for every built-in namespace by name. Default: 1200. */
  minChars?: number;
  /** The sentence on what `execute_python` returns (PythonTool writes it from the result's types, `result-shape.ts`). */
  resultContract: string;
  /** Names of every tool the persona may call: tools outside it (e.g. `read_skill`) are never mentioned. Default: the names in `tools`. */
  allowed?: readonly string[];
}

/** The JSON schemas of `tools` as a provider would get them, in characters. */
export function schemaChars(tools: readonly ToolDeclaration[]): number {
  return tools.length ? JSON.stringify(tools.map((d) => ({ name: d.name, description: d.description, input_schema: d.inputSchema }))).length : 0;
}

/** The lines of one namespace at `detail`. */
export function namespaceIndex(ns: string, list: readonly ToolDeclaration[], detail: IndexDetail): string[] {
  if (detail === 'count') return [`${ns}: ${list.length} tool${list.length === 1 ? '' : 's'}`];
  const fns = functionNames(list);
  const names = list.map((t) => fns.get(t.name)).join(', ');
  if (detail === 'names') return [`${ns}: ${names}`];
  return [`${ns}: from tools.${ns} import ${names}`, ...list.map((t) => `  - ${signatureOf(t, fns.get(t.name))} — ${firstSentence(t.description)}`)];
}

/** The Python-mode fragment for `tools` (Python-callable ones are indexed), each namespace at its detail (default: signatures). */
export function generateSystemPrompt(options: {
  tools: readonly ToolDeclaration[];
  personaName: string;
  resultContract: string;
  /** Whether the persona may call `read_skill` (it is mentioned only then). Default: false. */
  readSkill?: boolean;
  detail?: Readonly<Record<string, IndexDetail>>;
}): string {
  const groups = groupByNamespace(options.tools.filter((t) => t.pythonCallable));
  return [
    `You are ${options.personaName}, on Armature. Work in Python: call \`execute_python\` with code. In it each tool below`,
    'is a function (`from tools.<namespace> import <tool>`, or `call_tool("name", {"arg": value})`) returning Python data',
    'or raising `ToolError`. Fetch and compute in one run; never paste data into code.',
    options.resultContract,
    `When ok is false, read the hint, fix the code and retry — at most twice.${options.readSkill ? ' `read_skill(namespace)` gives signatures and examples.' : ''}`,
    'Tools by namespace:',
    ...[...groups].flatMap(([ns, list]) => namespaceIndex(ns, list, options.detail?.[ns] ?? 'signatures')),
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

const LEVELS: readonly IndexDetail[] = ['count', 'names', 'signatures'];

/** Chooses the fragment for `tools` (see the module comment) and measures it. */
export function planPrompt(options: PromptOptions): PromptPlan {
  const { tools, personaName, resultContract } = options;
  const allowed = new Set(options.allowed ?? tools.map((t) => t.name));
  const callable = tools.filter((t) => t.pythonCallable);
  const stats = (text: string, covered: readonly ToolDeclaration[], mode: PromptMode, detail: Record<string, IndexDetail> = {}): PromptStats => {
    const schema = schemaChars(covered);
    return { promptChars: text.length, schemaChars: schema, ratio: schema ? text.length / schema : 0, tools: covered.length, mode, detail };
  };
  if (allowed.has('execute_python') && callable.length) {
    const covered = schemaChars(callable);
    const allowance = Math.max(options.minChars ?? 1200, (options.targetRatio ?? 0.05) * covered);
    const nativeTools = tools.filter((t) => !t.pythonCallable).map((t) => t.name);
    const groups = [...groupByNamespace(callable)];
    const readSkill = allowed.has('read_skill');
    const render = (detail: Record<string, IndexDetail>) => generateSystemPrompt({ tools, personaName, resultContract, readSkill, detail });
    const detail: Record<string, IndexDetail> = Object.fromEntries(groups.map(([ns]) => [ns, 'signatures']));
    let text = render(detail);
    if (text.length > allowance) {
      for (const [ns] of groups) detail[ns] = 'count';
      text = render(detail);
      // Richer levels, cheapest namespaces first, while the fragment stays within its allowance.
      for (const level of LEVELS.slice(1)) {
        const cost = (ns: string, list: readonly ToolDeclaration[]) => namespaceIndex(ns, list, level).join('\n').length;
        for (const [ns] of [...groups].sort(([a, la], [b, lb]) => cost(a, la) - cost(b, lb))) {
          const tried = render({ ...detail, [ns]: level });
          if (tried.length <= allowance) {
            detail[ns] = level;
            text = tried;
          }
        }
      }
    }
    if (text.length <= covered) {
      const mode = Object.values(detail).every((d) => d === 'signatures') ? 'python' : 'python-compact';
      return { mode, text, nativeTools, stats: stats(text, callable, mode, detail) };
    }
  }
  const text = generateDirectPrompt(tools, personaName, schemaChars(tools));
  return { mode: 'direct', text, nativeTools: tools.map((t) => t.name), stats: stats(text, tools, 'direct') };
}
