/**
 * The tools an agent offers a model, the system prompts that go with them, and the result a model
 * is given back: shared by the Agent upgrade and `armature/ai-sdk`, so both offer the same tools
 * the same way.
 */
import { ArmatureError } from '../kernel/errors.ts';
import type { Persona, ToolDeclaration } from '../kernel/manifest-schemas.ts';
import type { ToolResult } from '../kernel/tool-contract.ts';
import type { ToolMode } from './agent-contract.ts';

/** The tools code mode offers the model; every other tool is called from Python. */
export const CODE_MODE_TOOLS = ['execute_python', 'list_skills', 'read_skill'] as const;

/** A tool as the model is offered it. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * The tools a run offers: in `code` mode `execute_python`, the skill tools, and the tools Python
 * cannot call (such as `create_tool`, whose tests need the Python runtime the calling code would
 * hold): they are reachable no other way. In `direct` mode every tool. Each is restricted to what
 * `allowed` (the persona's allowed declarations) holds. Throws `CODE_MODE_NEEDS_PYTHON` when code
 * mode is asked for without `execute_python`.
 */
export function offeredTools(mode: ToolMode, allowed: readonly ToolDeclaration[], persona: Persona): OfferedTool[] {
  const list = mode === 'code' ? allowed.filter((d) => (CODE_MODE_TOOLS as readonly string[]).includes(d.name) || !d.pythonCallable) : [...allowed];
  if (mode === 'code' && !list.some((d) => d.name === 'execute_python')) {
    throw new ArmatureError('CODE_MODE_NEEDS_PYTHON', `[agent] persona ${persona.id} runs in code mode but execute_python is not available to it`, {
      hint: `Load PythonTool and allow execute_python in modules/personas/${persona.id}.json, or set "toolMode": "direct" there.`,
    });
  }
  return list.map((d) => ({ name: d.name, description: d.description, inputSchema: d.inputSchema }));
}

const ANSWER_LINE = 'When the goal is reached, reply with the answer in plain text, without calling a tool.';

/** Code mode's system prompt: PythonTool's fragment for the persona, and how to finish. */
export function codeModePrompt(pythonFragment: string): string {
  return `${pythonFragment.trimEnd()}\n\n${ANSWER_LINE}`;
}

/** Direct mode's system prompt: each tool is a function of its own, declared with its schema. */
export function directModePrompt(persona: Persona, tools: readonly OfferedTool[]): string {
  return [
    `You are ${persona.name}, an agent running on Armature.`,
    '',
    'Call the tools you are given directly, as functions; their arguments follow each tool\'s JSON schema.',
    'Each returns `{ ok: true, value }` or `{ ok: false, error: { code, message }, hint }`.',
    'When ok is false, read the hint, fix the arguments and retry — at most twice — before reporting the failure.',
    tools.length ? `Tools: ${tools.map((t) => t.name).join(', ')}.` : 'You have no tools: answer from what you know.',
    '',
    ANSWER_LINE,
  ].join('\n');
}

/** Default size of a tool result given back to the model, in characters of JSON. */
export const DEFAULT_MAX_RESULT_CHARS = 20_000;

/**
 * What the model gets back from a tool call: `{ ok: true, value }` or `{ ok: false, error, hint }`.
 * A failed `execute_python` keeps its `error.details` (traceback, output), as the code-mode prompt
 * describes it (`upgrades/python-tool/result-shape.ts`). A result longer than `maxChars` of JSON is cut,
 * saying so, instead of flooding the model's context.
 */
export function toModelResult(name: string, result: ToolResult, maxChars = DEFAULT_MAX_RESULT_CHARS): Record<string, unknown> {
  let out: Record<string, unknown>;
  if (result.ok) {
    out = { ok: true, value: result.value ?? null };
  } else if (name === 'execute_python') {
    // The shape the system prompt states (result-shape.ts): the traceback and output live in details.
    out = { ok: false, error: { code: result.error.code, message: result.error.message, details: result.error.details ?? {} }, ...(result.hint ? { hint: result.hint } : {}) };
  } else {
    out = { ok: false, error: { code: result.error.code, message: result.error.message }, ...(result.hint ? { hint: result.hint } : {}) };
  }
  const json = JSON.stringify(out) ?? 'null';
  // Parsed back so what the model gets is plain JSON (no undefined, no class instances).
  if (json.length <= maxChars) return JSON.parse(json) as Record<string, unknown>;
  return {
    ok: out.ok,
    truncated: true,
    note: `The result was ${json.length} characters of JSON; only the first ${maxChars} are shown. Ask for less (a prefix, a slice, a summary computed in Python).`,
    partial: json.slice(0, maxChars),
  };
}
