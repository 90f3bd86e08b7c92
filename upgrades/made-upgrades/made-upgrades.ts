/**
 * The tools an agent builds upgrades with: `create_upgrade`, `update_upgrade`, `upgrade_history`,
 * `rollback_upgrade`, `retire_upgrade`, and `retry_upgrade` (start a held-back version again). Each turns the call into a change on the one change path
 * (`Changes`, kind `upgrade`) and answers what became of it — as the tool tools do. None approves
 * anything: approval is a person's, on the dashboard or the command line.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeRecord, ChangesApi } from '../../src/contracts/change-contract.ts';
import { type ChangeAnswerBase, approvalHint, changeAnswerBase, historyEntry, testMs, testOutcome } from '../../src/contracts/change-history.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { didYouMean, nearMadeUpgrades } from '../../src/contracts/made-names.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import type { ToolCallContext, ToolHandler } from '../../src/kernel/upgrade.ts';
import { fullToolName, toUpgradeContent, type MadeUpgradeContent, type UpgradeArgs } from './upgrade-spec.ts';

/** What `create_upgrade`, `update_upgrade` and `rollback_upgrade` answer. */
export interface UpgradeChangeAnswer extends ChangeAnswerBase {
  id: string;
  tests: { name?: string; tool?: string; args: unknown; ok: boolean; value?: unknown; error?: { code: string; message: string }; ms: number }[];
  /** What happens next. */
  hint?: string;
}

/** Options of {@link madeUpgradeHandlers}. */
export interface MadeUpgradeHandlersOptions {
  changes: ChangesApi;
  persona: Persona;
  /** Whether the persona runs the upgrade `id` now. */
  runs(id: string): boolean;
  /** Lets a held-back version in force start again, and starts it (see `upgrade-kind.ts`). */
  retry(id: string): Promise<{ id: string; version: number; running: boolean; released: boolean }>;
}

/** The answer to a proposed upgrade change. */
export function upgradeAnswer(r: ChangeRecord, runs: (id: string) => boolean, content?: MadeUpgradeContent): UpgradeChangeAnswer {
  const answer: UpgradeChangeAnswer = {
    id: r.target,
    ...changeAnswerBase(r),
    tests: r.tests.map((t) => {
      const a = t.args as { tool?: string; args?: unknown } | undefined;
      return { ...(t.name ? { name: t.name } : {}), ...(a?.tool ? { tool: a.tool } : {}), args: a?.args ?? t.args, ...testOutcome(t), ...('value' in t ? { value: t.value } : {}), ms: testMs(t) };
    }),
  };
  const { status } = answer;
  if (status === 'pending') {
    answer.hint = `${approvalHint(r)}. Until then ${r.parent === null ? 'the upgrade does not exist' : `version ${r.parent} stays in force`}.`;
  } else if (status === 'rejected') {
    answer.hint = r.parent === null ? 'Nothing came into force. Fix what the report says and create the upgrade again.' : `Version ${r.parent} stays in force. Fix what the report says and call update_upgrade again.`;
  } else if (runs(r.target)) {
    const tool = content?.tools[0]?.name;
    answer.hint = `It runs now${tool ? `: call_tool("${fullToolName(r.target, tool)}", {...}), or from Python: from tools.${fullToolName(r.target, tool).replace('.', ' import ')}` : ''}.`;
  } else {
    answer.hint = `In force. Your persona runs it once you add it: update_persona { "add_upgrades": ["${r.target}"] }.`;
  }
  return answer;
}

/** The tool handlers, by tool name. */
export function madeUpgradeHandlers(o: MadeUpgradeHandlersOptions): Record<string, ToolHandler> {
  const { changes } = o;
  const recordsOf = (id: string) => changes.list({ kind: 'upgrade', target: id });
  const targets = () => [...new Set(changes.list({ kind: 'upgrade' }).map((r) => r.target))].sort();

  /** An agent-made upgrade the agent names that has a history. */
  const existing = (id: unknown): string => {
    if (typeof id === 'string' && recordsOf(id).length) return id;
    throw new ArmatureError('UPGRADE_NOT_FOUND', `[made-upgrades] no agent-made upgrade ${quote(id)}${didYouMean(nearMadeUpgrades(id, targets()))}`, {
      hint: targets().length ? `Agent-made upgrades: ${targets().join(', ')}. Make a new one with create_upgrade.` : 'No upgrade has been made yet: make one with create_upgrade.',
    });
  };

  const opts = (args: Record<string, unknown>, call: ToolCallContext) => ({ caller: call.caller, callId: call.callId, ...(typeof args.reason === 'string' ? { reason: args.reason } : {}) });
  const contentOf = (r: ChangeRecord) => changes.content(r) as MadeUpgradeContent | undefined;

  return {
    async create_upgrade(args, call) {
      const content = toUpgradeContent(args as unknown as UpgradeArgs, o.persona);
      const active = changes.active('upgrade', content.id);
      if (active && active.hash !== null) {
        throw new ArmatureError('UPGRADE_EXISTS', `[made-upgrades] ${content.id} exists (version ${active.version} is in force)`, { hint: 'Call update_upgrade to make its next version, or choose another id.' });
      }
      return upgradeAnswer(await changes.propose({ kind: 'upgrade', action: 'create', content, ...opts(args, call) }), o.runs, content);
    },

    async update_upgrade(args, call) {
      const id = existing(args.id);
      const active = changes.active('upgrade', id);
      const base = active?.hash ? active : recordsOf(id).find((r) => r.hash !== null);
      const content = toUpgradeContent(args as unknown as UpgradeArgs, o.persona, base && contentOf(base));
      return upgradeAnswer(await changes.propose({ kind: 'upgrade', action: 'update', content, ...opts(args, call) }), o.runs, content);
    },

    async rollback_upgrade(args, call) {
      const id = existing(args.id);
      const r = await changes.rollback('upgrade', id, args.version as number, opts(args, call));
      return upgradeAnswer(r, o.runs, contentOf(r));
    },

    async retire_upgrade(args, call) {
      const id = existing(args.id);
      const r = await changes.retire('upgrade', id, opts(args, call));
      return {
        id,
        change: r.id,
        status: r.status === 'active' ? 'retired' : r.status,
        ...(r.status === 'pending' ? { hint: `${approvalHint(r)}; until then the upgrade stays in force.` } : { hint: 'Stopped: its tools, events and widget are gone. rollback_upgrade brings a version back.' }),
      };
    },

    async retry_upgrade(args) {
      const r = await o.retry(existing(args.id));
      return {
        ...r,
        hint: r.running
          ? `${r.released ? 'It was held back; it' : 'It'} runs now, version ${r.version}.`
          : `Version ${r.version} is in force but does not run here: your persona does not run it (update_persona { "add_upgrades": ["${r.id}"] }), or what it depends on does not run.`,
      };
    },

    upgrade_history(args) {
      const id = existing(args.id);
      const active = changes.active('upgrade', id);
      return {
        id,
        running: o.runs(id),
        inForce: active?.version ?? null,
        versions: recordsOf(id)
          .reverse()
          .map(historyEntry),
      };
    },
  };
}
