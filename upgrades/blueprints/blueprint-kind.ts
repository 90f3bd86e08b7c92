/**
 * The `blueprint` kind of change: an agent-made blueprint, stored as versions on the change path,
 * checked like the project's own (the same front matter schema, the house sections, a checklist
 * whose items each name the test that proves them), in force in the registry beside the project's
 * blueprints, for `list_blueprints`, `read_blueprint` and the upgrades built from it.
 */
import { quote } from '../../src/kernel/bounded.ts';
import type { ChangeKindHandler, ChangesApi, ChangeTest } from '../../src/contracts/change-contract.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { kebabCase, MADE_UPGRADE_ID_RULE } from '../../src/contracts/made-names.ts';
import { checklistProblems, sectionProblems, verificationChecklist } from './checklist.ts';
import { BlueprintFrontMatterSchema, type Blueprint } from './front-matter.ts';
import { isAgentBlueprintId, type BlueprintCandidate, type BlueprintRegistry } from './registry.ts';

/** The content of one version of an agent-made blueprint. */
export interface MadeBlueprintContent {
  /** Allocated from the agents' range, e.g. `0xA00001`. */
  id: string;
  title: string;
  /** The agent-made upgrade it describes, e.g. `notes-index`. */
  target: string;
  prerequisites: string[];
  /** Markdown: the house sections. */
  body: string;
}

/** Largest body of an agent-made blueprint, in characters. */
export const MAX_BODY_CHARS = 100_000;

/** An agent-made upgrade id: kebab-case, 2 to 40 characters (built-in upgrades are PascalCase). */
export const MADE_UPGRADE_ID = /^[a-z][a-z0-9-]{1,39}$/;

/** The blueprint as a document: YAML front matter and the body, as `blueprints/*.md` are written. */
export function blueprintText(c: MadeBlueprintContent): string {
  return `---\nid: ${c.id}\ntitle: ${JSON.stringify(c.title)}\ntarget: ${c.target}\nprerequisites: [${c.prerequisites.join(', ')}]\nartifacts: []\n---\n${c.body.trim()}\n`;
}

/** Why `target` cannot be a blueprint's target, with the rule, its reason, and the id to write instead. */
function targetProblem(target: unknown): string {
  const kebab = typeof target === 'string' ? kebabCase(target) : '';
  const instead = MADE_UPGRADE_ID.test(kebab) ? `; write it as ${quote(kebab)}` : '';
  return `target ${quote(target)} is not an agent-made upgrade id${instead}: ${MADE_UPGRADE_ID_RULE}. The project's own upgrades are described by the project's blueprints.`;
}

/** Options of {@link createBlueprintKind}. */
export interface BlueprintKindOptions {
  registry: BlueprintRegistry;
  changes: ChangesApi;
}

/** Creates the `blueprint` kind and the `candidate` lookup the upgrade gate uses. */
export function createBlueprintKind(o: BlueprintKindOptions): ChangeKindHandler<MadeBlueprintContent> & { candidate(id: string): BlueprintCandidate | undefined } {
  const { registry, changes } = o;

  const asBlueprint = (c: MadeBlueprintContent, extra: Partial<Blueprint> = {}): Blueprint => ({
    id: c.id,
    title: c.title,
    target: c.target,
    prerequisites: c.prerequisites,
    artifacts: [],
    body: c.body,
    origin: 'agent',
    file: 'changes',
    ...extra,
  });

  /** The checks of a version, each reported as a named test; failures are its problems. */
  const check = (target: string, c: MadeBlueprintContent): { problems: string[]; tests: ChangeTest[]; requires: string[] } => {
    const tests: ChangeTest[] = [];
    const problems: string[] = [];
    const requires: string[] = [];
    const run = (name: string, found: string[]) => {
      tests.push({ name, args: {}, ok: !found.length, ms: 0, ...(found.length ? { error: { code: 'CHECK_FAILED', message: found.join(' ') } } : {}) });
      problems.push(...found);
    };
    const fm = BlueprintFrontMatterSchema.safeParse({ id: c.id, title: c.title, target: c.target, prerequisites: c.prerequisites, artifacts: [] });
    run('front-matter', [
      ...(fm.success ? [] : fm.error.issues.map((i) => `front matter ${i.path.join('.') || 'field'}: ${i.message}.`)),
      ...(c.id === target ? [] : [`id ${quote(c.id)} does not match the blueprint ${target}.`]),
      ...(typeof c.title === 'string' && c.title.length <= 200 ? [] : ['title must be at most 200 characters.']),
    ]);
    run('target', MADE_UPGRADE_ID.test(String(c.target)) ? [] : [targetProblem(c.target)]);
    const prereqProblems: string[] = [];
    for (const p of Array.isArray(c.prerequisites) ? c.prerequisites : []) {
      const found = candidateOf(p);
      if (!found) prereqProblems.push(`prerequisite ${quote(p)} is not a blueprint: list them with list_blueprints.`);
      else if (found.status === 'pending' && found.change) requires.push(found.change);
    }
    run('prerequisites', prereqProblems);
    const body = typeof c.body === 'string' ? c.body : '';
    run('sections', body.length > MAX_BODY_CHARS ? [`the body is ${body.length} characters; at most ${MAX_BODY_CHARS}.`] : sectionProblems(body));
    run('checklist', checklistProblems(verificationChecklist(body)));
    return { problems, tests, requires };
  };

  function candidateOf(id: string): BlueprintCandidate | undefined {
    let inForce: Blueprint | undefined;
    try {
      inForce = registry.get(id);
    } catch {
      inForce = undefined;
    }
    if (inForce) {
      return { blueprint: inForce, checklist: verificationChecklist(inForce.body), status: inForce.origin === 'project' ? 'project' : 'active', ...(inForce.change ? { change: inForce.change } : {}) };
    }
    const pending = changes.list({ kind: 'blueprint', target: id, status: 'pending' })[0];
    const content = pending && (changes.content(pending) as MadeBlueprintContent | undefined);
    if (!pending || !content) return undefined;
    const blueprint = asBlueprint(content, { version: pending.version!, change: pending.id, file: `changes:${pending.hash!.slice(0, 12)}` });
    return { blueprint, checklist: verificationChecklist(content.body), status: 'pending', change: pending.id };
  }

  return {
    kind: 'blueprint',

    targetOf(c) {
      if (!c || typeof c.id !== 'string' || !isAgentBlueprintId(c.id)) {
        throw new ArmatureError('INVALID_BLUEPRINT_ID', `[blueprints] ${quote(c?.id)} is not an agent-made blueprint id (0xA00001 to 0xAFFFFF)`, { hint: 'create_blueprint allocates the id; update_blueprint takes the id it gave.' });
      }
      return c.id;
    },

    async gate(target, c) {
      return check(target, c);
    },

    async activate(target, c, info) {
      if (registry.isProject(target)) throw new ArmatureError('BLUEPRINT_ID_TAKEN', `[blueprints] ${target} is a blueprint of the project`, { hint: 'Create the blueprint again: it gets a new id.' });
      registry.setMade(asBlueprint(c, { version: info.version, change: info.change, file: `changes:${info.hash.slice(0, 12)}` }));
    },

    async deactivate(target) {
      registry.removeMade(target);
    },

    present: (c) => ({ code: blueprintText(c), language: 'markdown', details: { id: c.id, title: c.title, target: c.target, prerequisites: c.prerequisites } }),

    candidate: candidateOf,
  };
}
