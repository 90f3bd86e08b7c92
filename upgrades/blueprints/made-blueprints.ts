/**
 * `create_blueprint` and `update_blueprint`: an agent writes the design document of an upgrade it
 * will build. Each call is a change on the change path (kind `blueprint`): versioned, checked,
 * decided by the persona's policy or a person, recorded. Ids come from the agents' range.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeRecord, ChangesApi } from '../../src/contracts/change-contract.ts';
import { type ChangeAnswerBase, approvalHint, changeAnswerBase, testOutcome } from '../../src/contracts/change-history.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { ToolCallContext, ToolHandler } from '../../src/kernel/upgrade.ts';
import type { MadeBlueprintContent } from './blueprint-kind.ts';
import { AGENT_BLUEPRINT_IDS, isAgentBlueprintId } from './registry.ts';

/** What `create_blueprint` and `update_blueprint` answer. */
export interface BlueprintChangeAnswer extends ChangeAnswerBase {
  id: string;
  /** The checks the version went through (front matter, target, prerequisites, sections, checklist). */
  tests: { name?: string; ok: boolean; error?: { code: string; message: string } }[];
  hint?: string;
}

/** The id after the highest agent-made one ever proposed (or being proposed now). */
function nextId(changes: ChangesApi, taken: ReadonlySet<string>): string {
  const used = [...new Set([...changes.list({ kind: 'blueprint' }).map((r) => r.target), ...taken])].filter(isAgentBlueprintId).map((id) => Number.parseInt(id.slice(2), 16));
  const n = Math.max(AGENT_BLUEPRINT_IDS.first - 1, ...used) + 1;
  if (n > AGENT_BLUEPRINT_IDS.last) throw new ArmatureError('BLUEPRINT_IDS_EXHAUSTED', '[blueprints] every agent-made blueprint id is taken', { hint: 'Update an existing blueprint instead.' });
  return `0x${n.toString(16).toUpperCase().padStart(6, '0')}`;
}

/** The answer to a proposed blueprint change. */
export function blueprintAnswer(r: ChangeRecord): BlueprintChangeAnswer {
  const answer: BlueprintChangeAnswer = {
    id: r.target,
    ...changeAnswerBase(r),
    tests: r.tests.map((t) => ({ ...(t.name ? { name: t.name } : {}), ...testOutcome(t) })),
  };
  const { status } = answer;
  answer.hint =
    status === 'pending'
      ? `${approvalHint(r)}. An upgrade can be built on it meanwhile: it waits for this blueprint.`
      : status === 'rejected'
        ? 'Nothing came into force. Fix what the report says and call update_blueprint (or create_blueprint) again.'
        : `read_blueprint("${r.target}") shows it; build its upgrade with create_upgrade { id, blueprint: "${r.target}", ... }.`;
  return answer;
}

/** The blueprint tools, by name. `changes` is undefined when the persona does not load Changes. */
export function madeBlueprintHandlers(changes: ChangesApi | undefined, personaId: string): Record<string, ToolHandler> {
  const taken = new Set<string>();
  const need = (): ChangesApi => {
    if (changes) return changes;
    throw new ArmatureError('KIND_UNAVAILABLE', `[blueprints] persona ${personaId} does not load Changes, which keeps agent-made blueprints`, { hint: `Add "Changes" to "upgrades" in modules/personas/${personaId}.json.` });
  };
  const opts = (args: Record<string, unknown>, call: ToolCallContext) => ({ caller: call.caller, callId: call.callId, ...(typeof args.reason === 'string' ? { reason: args.reason } : {}) });
  const content = (id: string, args: Record<string, unknown>, base?: MadeBlueprintContent): MadeBlueprintContent => ({
    id,
    title: String(args.title ?? base?.title ?? ''),
    target: String(args.target ?? base?.target ?? ''),
    prerequisites: (args.prerequisites as string[] | undefined) ?? base?.prerequisites ?? [],
    body: String(args.body ?? base?.body ?? ''),
  });

  return {
    async create_blueprint(args, call) {
      const c = need();
      const id = nextId(c, taken);
      taken.add(id);
      try {
        return blueprintAnswer(await c.propose({ kind: 'blueprint', action: 'create', content: content(id, args), ...opts(args, call) }));
      } finally {
        taken.delete(id);
      }
    },

    async update_blueprint(args, call) {
      const c = need();
      const id = String(args.id);
      const records = c.list({ kind: 'blueprint', target: id });
      if (!records.length) {
        const mine = [...new Set(c.list({ kind: 'blueprint' }).map((r) => r.target))].sort();
        throw new ArmatureError('BLUEPRINT_NOT_FOUND', `[blueprints] no agent-made blueprint ${quote(args.id)}`, {
          hint: mine.length ? `Agent-made blueprints: ${mine.join(', ')}. The project's own blueprints are changed by people.` : 'None has been made yet: create one with create_blueprint.',
        });
      }
      const active = c.active('blueprint', id);
      const base = (active?.hash ? active : records.find((r) => r.hash !== null))!;
      const previous = c.content(base) as MadeBlueprintContent | undefined;
      return blueprintAnswer(await c.propose({ kind: 'blueprint', action: 'update', content: content(id, args, previous), ...opts(args, call) }));
    },
  };
}
