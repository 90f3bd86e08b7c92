/**
 * The prompts Armature offers: `armature-system-prompt`, the system-prompt fragment (PythonTool only).
 */
import { ErrorCode, GetPromptRequestParamsSchema, ListPromptsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../kernel/bounded.ts';
import { onRequest } from './requests.ts';
import type { McpSession } from './session.ts';

/** Name of the prompt that carries the system-prompt fragment. */
export const SYSTEM_PROMPT_NAME = 'armature-system-prompt';

/** Serves the prompts on `s.server`. */
export function servePrompts(s: McpSession): void {
  const { python } = s;
  s.server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: python
      ? [{ name: SYSTEM_PROMPT_NAME, title: 'Armature system prompt', description: 'How to use this persona\'s tools: from Python inside execute_python, with the skill index (or the tools to call directly, for a persona with few tools).' }]
      : [],
  }));
  onRequest(s.server, 'prompts/get', GetPromptRequestParamsSchema, { name: 'the name of the prompt, as prompts/list gives it', arguments: 'the prompt\'s arguments by name, each a string' }, (params) => {
    if (!python || params.name !== SYSTEM_PROMPT_NAME) {
      throw new McpError(ErrorCode.InvalidParams, `no prompt ${quote(params.name)}; prompts: ${python ? SYSTEM_PROMPT_NAME : 'none (this persona does not load PythonTool)'}`);
    }
    const plan = python.getPromptPlan();
    return { description: `Armature system prompt (${plan.mode})`, messages: [{ role: 'user', content: { type: 'text', text: plan.text } }] };
  });
}
