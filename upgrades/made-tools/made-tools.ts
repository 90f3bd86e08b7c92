/**
 * The tools an agent makes its own tools with: `create_tool`, `update_tool`, `list_tools_made`,
 * `tool_history`, `rollback_tool`, `retire_tool`. Each turns the call into a change on the one
 * change path (`Changes`) and answers what became of it. None approves anything: approval is a
 * person's, on the dashboard or the command line.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeRecord, ChangesApi } from '../../src/contracts/change-contract.ts';
import { type ChangeAnswerBase, approvalHint, changeAnswerBase, historyEntry, testMs, testOutcome } from '../../src/contracts/change-history.ts';
import { EVERY_TOOL } from '../../src/kernel/allow-list.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { didYouMean, MADE_TOOL_NAME_RULE, nearMadeTools } from '../../src/contracts/made-names.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { ToolRunnerApi } from '../../src/kernel/tool-contract.ts';
import type { ToolCallContext, ToolHandler } from '../../src/kernel/upgrade.ts';
import type { LiveToolInfo } from './tool-kind.ts';
import { fullToolName, localToolName, toContent, type MadeToolContent, type ToolArgs } from './tool-spec.ts';

/** What `create_tool`, `update_tool` and `rollback_tool` answer. */
export interface ToolChangeAnswer extends ChangeAnswerBase {
  name: string;
  tests: { args: unknown; ok: boolean; value?: unknown; error?: { code: string; message: string }; ms: number }[];
  /** What happens next (a pending change waits for a person). */
  hint?: string;
}

/** Options of {@link madeToolHandlers}. */
export interface MadeToolHandlersOptions {
  changes: ChangesApi;
  runner: ToolRunnerApi;
  persona: Persona;
  /** The tools in force. */
  live(): LiveToolInfo[];
}

/** The answer to a proposed tool change. */
export function answerOf(r: ChangeRecord): ToolChangeAnswer {
  const answer: ToolChangeAnswer = {
    name: r.target,
    ...changeAnswerBase(r),
    tests: r.tests.map((t) => ({ args: t.args, ...testOutcome(t), ...('value' in t ? { value: t.value } : {}), ms: testMs(t) })),
  };
  const { status } = answer;
  if (status === 'pending') {
    answer.hint = `${approvalHint(r)}. Until then ${r.parent === null ? 'the tool does not exist' : `version ${r.parent} stays in force`}.`;
  } else if (status === 'rejected') {
    answer.hint = r.parent === null ? 'Nothing came into force. Fix what the report says and create the tool again.' : `Version ${r.parent} stays in force. Fix what the report says and call update_tool again.`;
  } else {
    answer.hint = `It is callable now: call_tool("${r.target}", {...}), or from Python: from tools.${r.target.slice(0, r.target.indexOf('.'))} import ${localToolName(r.target)}.`;
  }
  return answer;
}

/** The tool handlers, by tool name. */
export function madeToolHandlers(o: MadeToolHandlersOptions): Record<string, ToolHandler> {
  const { changes } = o;
  const recordsOf = (target: string) => changes.list({ kind: 'tool', target });
  const targets = () => [...new Set(changes.list({ kind: 'tool' }).map((r) => r.target))].sort();

  /** A tool the agent names (`word_count` or `made.word_count`) that has a history. */
  const existing = (name: unknown): string => {
    const full = fullToolName(name);
    if (recordsOf(full).length) return full;
    const sameLocal = targets().filter((t) => localToolName(t) === name);
    if (sameLocal.length === 1) return sameLocal[0]!;
    // A tool of an agent-made upgrade changes with its upgrade, not with update_tool.
    const ofUpgrade = nearMadeTools(name, o.runner.getToolDeclarations({ persona: EVERY_TOOL }).filter((d) => d.module === 'MadeUpgrades').map((d) => d.name));
    throw new ArmatureError('TOOL_NOT_FOUND', `[made-tools] no tool made with create_tool is named ${quote(name)}${didYouMean(nearMadeTools(name, targets()))}`, {
      hint: ofUpgrade.length
        ? `${ofUpgrade.join(', ')} ${ofUpgrade.length === 1 ? 'is a tool' : 'are tools'} of an agent-made upgrade: change ${ofUpgrade.length === 1 ? 'it' : 'them'} with update_upgrade.`
        : targets().length
          ? `Agent-made tools: ${targets().join(', ')} (${MADE_TOOL_NAME_RULE}). Make a new one with create_tool.`
          : 'No tool has been made yet: make one with create_tool.',
    });
  };

  const opts = (args: Record<string, unknown>, call: ToolCallContext) => ({
    caller: call.caller,
    callId: call.callId,
    ...(typeof args.reason === 'string' ? { reason: args.reason } : {}),
  });

  return {
    async create_tool(args, call) {
      const content = toContent(args as unknown as ToolArgs, o.persona);
      const active = changes.active('tool', content.name);
      if (active && active.hash !== null) {
        throw new ArmatureError('TOOL_EXISTS', `[made-tools] ${content.name} exists (version ${active.version} is in force)`, { hint: 'Call update_tool to make its next version, or choose another name.' });
      }
      return answerOf(await changes.propose({ kind: 'tool', action: 'create', content, ...opts(args, call) }));
    },

    async update_tool(args, call) {
      const target = existing(args.name);
      const all = recordsOf(target).filter((r) => r.hash !== null);
      const base = (changes.active('tool', target)?.hash ? changes.active('tool', target) : all[0]) as ChangeRecord | undefined;
      const previous = base ? (changes.content(base) as MadeToolContent | undefined) : undefined;
      const content = toContent({ ...(args as unknown as ToolArgs), name: target }, o.persona, previous);
      return answerOf(await changes.propose({ kind: 'tool', action: 'update', content, ...opts(args, call) }));
    },

    async rollback_tool(args, call) {
      const target = existing(args.name);
      return answerOf(await changes.rollback('tool', target, args.version as number, opts(args, call)));
    },

    async retire_tool(args, call) {
      const target = existing(args.name);
      const r = await changes.retire('tool', target, opts(args, call));
      return {
        name: target,
        change: r.id,
        status: r.status === 'active' ? 'retired' : r.status,
        ...(r.status === 'pending' ? { hint: `${approvalHint(r)}; until then the tool stays in force.` } : {}),
      };
    },

    list_tools_made() {
      const live = new Map(o.live().map((t) => [t.name, t]));
      const stats = new Map(o.runner.getStats().map((s) => [s.name, s]));
      return {
        tools: targets().map((name) => {
          const records = recordsOf(name);
          const active = changes.active('tool', name);
          const t = live.get(name);
          const newest = records.find((r) => r.hash !== null);
          const content = (t ? undefined : newest && (changes.content(newest) as MadeToolContent | undefined)) ?? undefined;
          return {
            name,
            status: t ? 'active' : active && active.hash === null ? 'retired' : records.some((r) => r.status === 'pending') ? 'pending' : active ? 'not loaded' : 'rejected',
            version: t?.version ?? null,
            language: t?.language ?? content?.language,
            description: t?.description ?? content?.description,
            pending: records.filter((r) => r.status === 'pending').map((r) => ({ change: r.id, version: r.version, action: r.action })),
            calls: stats.get(name)?.calls ?? 0,
            errors: stats.get(name)?.errors ?? 0,
            ...(t ? { canary: t.canary } : {}),
          };
        }),
      };
    },

    tool_history(args) {
      const target = existing(args.name);
      return {
        name: target,
        versions: recordsOf(target)
          .reverse()
          .map(historyEntry),
      };
    },
  };
}
