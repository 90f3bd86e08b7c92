/**
 * `completion/complete`: values for prompt arguments and resource-template variables as the
 * person types them — workspace paths (`armature://workspace/{+path}`, a prompt's `file`), skill
 * namespaces (`armature://skills/{namespace}`), persona ids (a prompt's `persona`). At most 100
 * values, the best first: those that start with what was typed, then those that contain it.
 */
import { CompleteRequestParamsSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../kernel/bounded.ts';
import { promptDefs, type ArgumentKind } from './prompts.ts';
import { onRequest } from './requests.ts';
import { SKILLS_TEMPLATE, WORKSPACE_TEMPLATE } from './resources.ts';
import type { McpSession } from './session.ts';

/** Most values one completion answers with (the spec's limit). */
const MAX_VALUES = 100;

/** `candidates` matching `typed`: prefix matches first, then substring matches (case-insensitive). */
export function complete(candidates: readonly string[], typed: string): { values: string[]; total: number; hasMore: boolean } {
  const t = typed.toLowerCase();
  const starts = candidates.filter((c) => c.toLowerCase().startsWith(t));
  const contains = t ? candidates.filter((c) => !c.toLowerCase().startsWith(t) && c.toLowerCase().includes(t)) : [];
  const all = [...starts, ...contains];
  return { values: all.slice(0, MAX_VALUES), total: all.length, hasMore: all.length > MAX_VALUES };
}

/** Serves completions on `s.server`. */
export function serveCompletions(s: McpSession): void {
  const candidates = (kind: ArgumentKind): string[] => {
    if (kind === 'workspace-path') return (s.workspace?.list() ?? []).map((f) => f.path);
    if (kind === 'persona') return [...s.sys.manifests.personas.keys()];
    return [];
  };
  onRequest(
    s.server,
    'completion/complete',
    CompleteRequestParamsSchema,
    { ref: 'what is being completed: { type: "ref/prompt", name } or { type: "ref/resource", uri }', argument: 'the argument being typed: { name, value }' },
    (params) => {
      const { ref, argument } = params;
      let kind: ArgumentKind | undefined;
      if (ref.type === 'ref/resource') {
        if (ref.uri === WORKSPACE_TEMPLATE && argument.name === 'path' && s.workspace) kind = 'workspace-path';
        else if (ref.uri === SKILLS_TEMPLATE && argument.name === 'namespace' && s.python) return { completion: complete(s.python.listSkills().map((k) => k.namespace), argument.value) };
        else throw new McpError(ErrorCode.InvalidParams, `no resource template ${quote(ref.uri, 200)} with a variable ${quote(argument.name)}; templates: ${[s.workspace && `${WORKSPACE_TEMPLATE} (path)`, s.python && `${SKILLS_TEMPLATE} (namespace)`].filter(Boolean).join(', ') || 'none'}`);
      } else {
        const def = promptDefs(s).get(ref.name);
        if (!def) throw new McpError(ErrorCode.InvalidParams, `no prompt ${quote(ref.name)}; prompts/list lists them`);
        kind = def.kinds[argument.name];
        if (!kind) throw new McpError(ErrorCode.InvalidParams, `prompt ${def.prompt.name} has no argument ${quote(argument.name)}; it has ${Object.keys(def.kinds).join(', ')}`);
      }
      return { completion: complete(candidates(kind), argument.value) };
    },
  );
}
