/**
 * The gate of an agent-made upgrade: a version comes into force only when its blueprint exists
 * and targets it, that blueprint's prerequisites and its own dependencies are loaded, the tools it
 * declares are the tools it implements (the rule boot applies to built-in upgrades), its `init`
 * runs, its tests pass in its own confined worker, and every item of the blueprint's verification
 * checklist names one of those tests. Anything else: rejected, with the report.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeTest, GateReport } from '../../src/contracts/change-contract.ts';
import { describeError, toErrorInfo, type ErrorInfo } from '../../src/kernel/errors.ts';
import { didYouMean, MADE_UPGRADE_ID_RULE, nearMadeUpgrades } from '../../src/contracts/made-names.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';
import { judge } from '../../src/contracts/test-expectations.ts';
import { compileInputSchema } from '../../src/kernel/tool-schema.ts';
import type { BlueprintRegistryApi } from '../blueprints/contract.ts';
import type { UpgradeInstance } from './upgrade-instance.ts';
import { fullToolName, staticProblems, type MadeUpgradeContent } from './upgrade-spec.ts';

/** What the gate needs to know of the system. */
export interface GateContext {
  blueprints: Pick<BlueprintRegistryApi, 'candidate'>;
  /** Whether a built-in upgrade is loaded in this system. */
  builtInLoaded(id: string): boolean;
  /** The ids of the agent-made upgrades in force or waiting for approval (for suggestions). */
  madeUpgrades(): string[];
  /** An agent-made upgrade: its change in force, else its newest pending one, and its content. */
  agentUpgrade(id: string): { status: 'active' | 'pending'; change: string; content: MadeUpgradeContent; running: boolean } | undefined;
  /** A worker for the version under test, with test capabilities (storage in memory); its module and `init` have the limits they will have in force. */
  instance(content: MadeUpgradeContent, hash: string): UpgradeInstance;
  /** One test's limit. */
  testTimeoutMs: number;
}

/** Runs the gate of `c`. Never rejects: everything wrong is a problem or a failing test. */
export async function gateUpgrade(c: MadeUpgradeContent, hash: string, g: GateContext): Promise<GateReport> {
  const problems = staticProblems(c);
  const requires: string[] = [];
  if (problems.length) return { problems, tests: [] };

  // The blueprint: it exists (in force, or waiting for approval: then this version waits too) and targets this upgrade.
  const bp = g.blueprints.candidate(c.blueprint);
  if (!bp) return { problems: [`blueprint ${c.blueprint} does not exist: write it with create_blueprint (target "${c.id}") first.`], tests: [] };
  if (bp.blueprint.target !== c.id) return { problems: [`blueprint ${c.blueprint} targets ${quote(bp.blueprint.target)}, not ${c.id}: build ${c.id} from a blueprint written for it.`], tests: [] };
  if (bp.status === 'pending' && bp.change) requires.push(bp.change);

  // What it stands on: the blueprint's prerequisites and its own dependencies, loaded.
  const needs = (id: string, why: string) => {
    if (id === 'kernel') return;
    const near = () => didYouMean(nearMadeUpgrades(id, g.madeUpgrades()));
    if (/^[A-Z]/.test(id)) {
      // PascalCase is a built-in upgrade's id; an agent-made one of that name is kebab-case.
      if (!g.builtInLoaded(id)) problems.push(`${why} ${id}, which this persona does not load${near()}${near() ? ` (${MADE_UPGRADE_ID_RULE})` : ''}.`);
      return;
    }
    const u = g.agentUpgrade(id);
    if (!u) problems.push(`${why} ${quote(id)}, which is not an agent-made upgrade in force${near()}: create it first.`);
    else if (u.status === 'pending') requires.push(u.change);
  };
  for (const p of bp.blueprint.prerequisites) {
    const pre = g.blueprints.candidate(p);
    if (!pre) problems.push(`its blueprint's prerequisite ${p} is not a blueprint.`);
    else needs(pre.blueprint.target, `its blueprint's prerequisite ${p} needs`);
  }
  for (const d of c.dependencies) needs(d, 'it depends on');
  const cycle = cycleThrough(c, g);
  if (cycle) problems.push(`dependency cycle: ${cycle.join(' -> ')}; break it by dropping one dependency.`);

  // Every checklist item names one of its tests.
  const names = new Set(c.tests.map((t) => t.name));
  if (!bp.checklist.length) problems.push(`blueprint ${c.blueprint} has no verification checklist: add one whose items name the tests that prove them (update_blueprint).`);
  for (const item of bp.checklist) {
    if (!item.test) problems.push(`checklist item "${item.text.slice(0, 80)}" of blueprint ${c.blueprint} names no test that proves it.`);
    else if (!names.has(item.test)) problems.push(`checklist item "${item.text.slice(0, 80)}" names test ${quote(item.test)}, which ${c.id} does not have (its tests: ${[...names].join(', ') || 'none'}): add it.`);
  }
  if (problems.length) return { problems, tests: [], requires };

  // Its own worker: the module loads, declares what it implements, init runs, the tests pass.
  const instance = g.instance(c, hash);
  try {
    let described;
    try {
      described = await instance.start();
    } catch (e) {
      return { problems: [`the module did not load: ${describeError(e)}`], tests: [], requires };
    }
    if (!described.members?.includes('init')) {
      return { problems: ['its default export has no init(ctx): export default { init(ctx) { ... }, tools: { ... }, dispose() { ... } }.'], tests: [], requires };
    }
    const implemented = described.tools ?? [];
    const declared = c.tools.map((t) => t.name);
    const declaredOnly = declared.filter((n) => !implemented.includes(n));
    const implementedOnly = implemented.filter((n) => !declared.includes(n));
    // The rule boot applies to built-in upgrades (ToolManifestMismatchError): declared = implemented.
    if (declaredOnly.length || implementedOnly.length) {
      const found: string[] = [];
      if (declaredOnly.length) found.push(`declared in tools but not implemented by ${c.id}: ${declaredOnly.join(', ')} (implement them in its tools object or remove the declarations).`);
      if (implementedOnly.length) found.push(`implemented by ${c.id} but not declared in tools: ${implementedOnly.join(', ')} (declare them, with a description and inputSchema, or remove them).`);
      return { problems: found, tests: [], requires };
    }
    try {
      await instance.init();
    } catch (e) {
      return { problems: [`init(ctx) failed: ${describeError(e)}`], tests: [], requires };
    }
    return { problems, tests: await runTests(c, instance, g.testTimeoutMs), requires };
  } finally {
    await instance.stop();
  }
}

/** Runs each test: arguments validated as a real call's, then the tool called in the worker. */
async function runTests(c: MadeUpgradeContent, instance: UpgradeInstance, timeoutMs: number): Promise<ChangeTest[]> {
  const validators = new Map(c.tools.map((t) => [t.name, compileInputSchema(t.inputSchema)]));
  const out: ChangeTest[] = [];
  for (const t of c.tests) {
    const t0 = performance.now();
    let outcome: { ok: true; value: unknown } | { ok: false; error: ErrorInfo };
    const parsed = validators.get(t.tool)!.safeParse(t.args ?? {});
    if (!parsed.success) {
      outcome = { ok: false, error: { code: 'INVALID_ARGUMENTS', message: `arguments of ${fullToolName(c.id, t.tool)} do not fit its inputSchema: ${parsed.error.issues.map((i) => `${formatJsonPath(i.path)}: ${i.message}`).join('; ')}` } };
    } else {
      try {
        outcome = { ok: true, value: await instance.call(t.tool, parsed.data as Record<string, unknown>, { timeoutMs }) };
      } catch (e) {
        outcome = { ok: false, error: toErrorInfo(e, 'TOOL_FAILED') };
      }
    }
    out.push({ ...judge(t, outcome, performance.now() - t0), name: t.name, args: { tool: t.tool, args: t.args } });
  }
  return out;
}

/** A dependency cycle through `c`, as the path of ids, if its dependencies lead back to it. */
function cycleThrough(c: MadeUpgradeContent, g: GateContext): string[] | undefined {
  const walk = (id: string, path: string[]): string[] | undefined => {
    if (id === c.id) return [...path, id];
    if (path.includes(id) || /^[A-Z]/.test(id)) return undefined;
    for (const d of g.agentUpgrade(id)?.content.dependencies ?? []) {
      const found = walk(d, [...path, id]);
      if (found) return found;
    }
    return undefined;
  };
  for (const d of c.dependencies) {
    const found = walk(d, [c.id]);
    if (found) return found;
  }
  return undefined;
}
