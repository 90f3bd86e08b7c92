/**
 * The prompts Armature offers (PythonTool only), each with the arguments a client asks the person
 * for (and completes, `completions.ts`):
 * - `armature-system-prompt` (`persona`?): the system-prompt fragment, for this persona or another;
 * - `use-armature` (`task`, `file`?): the fragment and the task, with a workspace file it is about;
 * - `skill-<namespace>` (`task`): one per skill, its SKILL.md and the task.
 */
import { ErrorCode, GetPromptRequestParamsSchema, ListPromptsRequestSchema, McpError, type GetPromptResult, type Prompt, type PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../kernel/bounded.ts';
import type { Persona } from '../kernel/manifest-schemas.ts';
import { onRequest } from './requests.ts';
import { workspaceUri } from './resources.ts';
import type { McpSession } from './session.ts';

/** Name of the prompt that carries the system-prompt fragment. */
export const SYSTEM_PROMPT_NAME = 'armature-system-prompt';
/** Name of the prompt that hands a task to Armature. */
export const TASK_PROMPT_NAME = 'use-armature';
/** Prefix of the per-skill prompts. */
export const SKILL_PROMPT_PREFIX = 'skill-';
/** A workspace file given to `use-armature` is embedded up to this size; past it, linked. */
const EMBED_BYTES = 64 * 1024;

/** What a prompt argument may complete to. */
export type ArgumentKind = 'persona' | 'workspace-path' | 'text';

/** One prompt: its listing, the kind of each argument, and its messages for given arguments. */
export interface PromptDef {
  prompt: Prompt;
  kinds: Record<string, ArgumentKind>;
  get(args: Record<string, string>): GetPromptResult;
}

const text = (t: string): PromptMessage => ({ role: 'user', content: { type: 'text', text: t } });

/** Every prompt of the session, by name. */
export function promptDefs(s: McpSession): Map<string, PromptDef> {
  const { python, sys } = s;
  const defs = new Map<string, PromptDef>();
  if (!python) return defs;
  const personaNamed = (id: string | undefined): Persona | undefined => {
    if (id === undefined || id === '' || id === sys.persona.id) return undefined;
    const found = sys.manifests.personas.get(id);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `no persona ${quote(id)}; personas: ${[...sys.manifests.personas.keys()].join(', ')}`);
    return found;
  };
  defs.set(SYSTEM_PROMPT_NAME, {
    prompt: {
      name: SYSTEM_PROMPT_NAME,
      title: 'Armature system prompt',
      description: 'How to use this persona\'s tools: from Python inside execute_python, with the skill index (or the tools to call directly, for a persona with few tools).',
      arguments: [{ name: 'persona', description: `Write it for another persona's allow-list (default: ${sys.persona.id}, the one served).`, required: false }],
    },
    kinds: { persona: 'persona' },
    get(args) {
      const plan = python.getPromptPlan(personaNamed(args.persona));
      return { description: `Armature system prompt (${plan.mode})`, messages: [text(plan.text)] };
    },
  });
  defs.set(TASK_PROMPT_NAME, {
    prompt: {
      name: TASK_PROMPT_NAME,
      title: 'Use Armature for this task',
      description: 'Hand a task to Armature: how to work with its tools (Python with every tool callable), then the task, with a workspace file it is about.',
      arguments: [
        { name: 'task', description: 'What to do.', required: true },
        { name: 'file', description: 'A workspace file the task is about (its path).', required: false },
      ],
    },
    kinds: { task: 'text', file: 'workspace-path' },
    get(args) {
      const messages: PromptMessage[] = [text(`${python.getPromptPlan().text}\n\nTask: ${args.task}`)];
      if (args.file) {
        const stat = s.workspace?.stat(args.file);
        if (!stat) throw new McpError(ErrorCode.InvalidParams, `no workspace file ${quote(args.file, 200)}; completion/complete lists them`);
        const uri = workspaceUri(args.file);
        const data = stat.size <= EMBED_BYTES ? s.workspace!.read(args.file) : undefined;
        let embedded: string | undefined;
        try {
          embedded = data && new TextDecoder('utf-8', { fatal: true }).decode(data);
        } catch {
          // Not text: linked instead.
        }
        messages.push({
          role: 'user',
          content: embedded === undefined ? { type: 'resource_link', uri, name: args.file, size: stat.size } : { type: 'resource', resource: { uri, mimeType: 'text/plain', text: embedded } },
        });
      }
      return { description: `Use Armature for: ${args.task.slice(0, 80)}`, messages };
    },
  });
  for (const skill of python.listSkills()) {
    const name = `${SKILL_PROMPT_PREFIX}${skill.namespace}`;
    defs.set(name, {
      prompt: {
        name,
        title: `Use the ${skill.namespace} tools`,
        description: `A task for the ${skill.namespace} tools (${skill.tools.slice(0, 6).join(', ')}${skill.tools.length > 6 ? ', ...' : ''}), with their SKILL.md.`,
        arguments: [{ name: 'task', description: 'What to do with these tools.', required: true }],
      },
      kinds: { task: 'text' },
      get(args) {
        const doc = python.readSkill(skill.namespace);
        return {
          description: `${skill.namespace}: ${args.task.slice(0, 80)}`,
          messages: [
            { role: 'user', content: { type: 'resource', resource: { uri: `armature://skills/${skill.namespace}`, mimeType: 'text/markdown', text: doc } } },
            text(`Using the ${skill.namespace} tools above (from Python in execute_python: \`from tools.${skill.namespace} import ...\`), do this: ${args.task}`),
          ],
        };
      },
    });
  }
  return defs;
}

/** Serves the prompts on `s.server`. */
export function servePrompts(s: McpSession): void {
  s.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...promptDefs(s).values()].map((d) => d.prompt) }));
  onRequest(s.server, 'prompts/get', GetPromptRequestParamsSchema, { name: 'the name of the prompt, as prompts/list gives it', arguments: 'the prompt\'s arguments by name, each a string' }, (params) => {
    const defs = promptDefs(s);
    const def = defs.get(params.name);
    if (!def) throw new McpError(ErrorCode.InvalidParams, `no prompt ${quote(params.name)}; prompts: ${[...defs.keys()].join(', ') || 'none (this persona does not load PythonTool)'}`);
    const args = params.arguments ?? {};
    const missing = (def.prompt.arguments ?? []).filter((a) => a.required && !args[a.name]?.trim()).map((a) => a.name);
    if (missing.length) throw new McpError(ErrorCode.InvalidParams, `prompt ${def.prompt.name} needs ${missing.map((m) => `arguments.${m}`).join(' and ')} (${missing.map((m) => def.prompt.arguments!.find((a) => a.name === m)!.description).join('; ')})`);
    const unknown = Object.keys(args).filter((k) => !(k in def.kinds));
    if (unknown.length) throw new McpError(ErrorCode.InvalidParams, `prompt ${def.prompt.name} takes no argument ${unknown.map((u) => quote(u)).join(', ')}; it takes ${Object.keys(def.kinds).join(', ')}`);
    return def.get(args);
  });
}
