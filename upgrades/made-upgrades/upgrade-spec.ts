/**
 * What an agent-made upgrade is, as stored in a version: its id, the blueprint it is built from,
 * its code, what it depends on, the tools and events it declares, its widget, its tests and the
 * allow-list of the persona that made it. Here are the rules its fields follow, and the one
 * conversion from `create_upgrade` / `update_upgrade` arguments to that content.
 */
import { quote } from '../../src/kernel/bounded.ts';
import { declarationProblems } from '../../src/kernel/declared-events.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { formatJsonPath, ToolDeclarationSchema, type Persona, type ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { kebabCase, MADE_UPGRADE_ID_RULE } from '../../src/contracts/made-names.ts';
import { namespaceOfMadeUpgrade } from '../../src/kernel/namespaces.ts';
import type { UpgradeCategory } from '../../src/kernel/upgrade.ts';

/** Id of the upgrade that runs agent-made upgrades (their tools' `module`). */
export const MADE_UPGRADES_ID = 'MadeUpgrades';

/** An agent-made upgrade id: kebab-case, 2 to 40 characters (built-in upgrades are PascalCase). */
export const UPGRADE_ID = /^[a-z][a-z0-9-]{1,39}$/;

/** Dashboard categories a widget may ask for. */
export const CATEGORIES: readonly UpgradeCategory[] = ['agent', 'core', 'runtime', 'tools', 'storage', 'knowledge'];

/** A tool an upgrade declares, as the manifests declare tools (`module` is implied). */
export type UpgradeToolDeclaration = Omit<ToolDeclaration, 'module' | 'namespace'>;

/** An event an upgrade declares: `<id>:<event>` and the JSON Schema of its payload. */
export interface UpgradeEventDeclaration {
  name: string;
  schema?: Record<string, unknown>;
}

/** One test: a call of one of the upgrade's tools, after its `init`, and what it must give. */
export interface UpgradeTestSpec {
  /** What a checklist item names as `(test: NAME)`. */
  name: string;
  /** One of its tools, e.g. `notes_summary`. */
  tool: string;
  args: Record<string, unknown>;
  expect?: unknown;
  expect_error?: string;
}

/** The content of one version of an agent-made upgrade. */
export interface MadeUpgradeContent {
  id: string;
  /** The blueprint it is built from, e.g. `0xA00001`; it must target this upgrade. */
  blueprint: string;
  /** An ES module: `export default { init(ctx), tools?: { name: handler }, dispose?() }`. */
  code: string;
  /** Upgrades that must run first: agent-made ids or built-in ones. */
  dependencies: string[];
  tools: UpgradeToolDeclaration[];
  events: UpgradeEventDeclaration[];
  widget?: { title: string; category: UpgradeCategory };
  tests: UpgradeTestSpec[];
  /** The persona that made it and its allow-list at the time: the most its `call_tool` may reach. */
  persona: Pick<Persona, 'id' | 'tools' | 'denyTools'>;
}

/** Largest code of an upgrade, in characters. */
export const MAX_CODE_CHARS = 200_000;
/** Most tests, tools and dependencies a version may bring. */
export const LIMITS = { tests: 50, tools: 32, dependencies: 16 } as const;

/** The part id an upgrade is reported under (`armature boot`, the dashboard). */
export const partId = (id: string) => `upgrade:${id}`;

/** `notes_summary` of `notes-index` -> `notes_index.notes_summary`. */
export function fullToolName(id: string, local: string): string {
  return `${namespaceOfMadeUpgrade(id)}.${local}`;
}

/** Refuses an id that cannot name an agent-made upgrade. Throws `INVALID_UPGRADE_ID`. */
export function checkUpgradeId(id: unknown): string {
  if (typeof id === 'string' && UPGRADE_ID.test(id)) return id;
  const kebab = typeof id === 'string' ? kebabCase(id) : '';
  const instead = UPGRADE_ID.test(kebab) ? kebab : 'notes-index';
  throw new ArmatureError('INVALID_UPGRADE_ID', `[made-upgrades] ${quote(id)} is not an agent-made upgrade id${UPGRADE_ID.test(kebab) ? `; did you mean ${quote(kebab)}?` : ''}: ${MADE_UPGRADE_ID_RULE}`, {
    hint: `Name it in kebab-case, e.g. ${quote(instead)} (its tools become ${namespaceOfMadeUpgrade(instead)}.<tool>, its events ${instead}:<event>).`,
  });
}

/** The fields of `create_upgrade` / `update_upgrade` (`update_upgrade` may leave any but `id` out). */
export interface UpgradeArgs {
  id: unknown;
  blueprint?: unknown;
  code?: unknown;
  dependencies?: unknown;
  tools?: unknown;
  events?: unknown;
  widget?: unknown;
  tests?: unknown;
}

/**
 * The content of a new version from the tool call's arguments, completed from `base` (the version
 * before, for `update_upgrade`). Tool names lose their namespace and event names gain the id, so
 * either spelling works. Whether it is a good version is its gate's business.
 */
export function toUpgradeContent(args: UpgradeArgs, persona: Pick<Persona, 'id' | 'tools' | 'denyTools'>, base?: MadeUpgradeContent): MadeUpgradeContent {
  const id = checkUpgradeId(args.id);
  const ns = `${namespaceOfMadeUpgrade(id)}.`;
  const pick = <T>(key: keyof UpgradeArgs, fallback: T | undefined, dflt?: T): T => {
    const v = args[key] ?? fallback ?? dflt;
    if (v === undefined) throw new ArmatureError('INVALID_ARGUMENTS', `[made-upgrades] ${key} is missing`, { hint: `Give ${key}.` });
    return v as T;
  };
  const tools = pick<UpgradeToolDeclaration[]>('tools', base?.tools, []);
  const events = pick<UpgradeEventDeclaration[]>('events', base?.events, []);
  const widget = (args.widget ?? base?.widget) as MadeUpgradeContent['widget'] | undefined;
  const tests = pick<UpgradeTestSpec[]>('tests', base?.tests);
  return {
    id,
    blueprint: String(pick('blueprint', base?.blueprint)),
    code: String(pick('code', base?.code)),
    dependencies: pick('dependencies', base?.dependencies, []),
    tools: Array.isArray(tools) ? tools.map((t) => (t && typeof t.name === 'string' && t.name.startsWith(ns) ? { ...t, name: t.name.slice(ns.length) } : t)) : tools,
    events: Array.isArray(events) ? events.map((e) => (e && typeof e.name === 'string' && !e.name.includes(':') ? { ...e, name: `${id}:${e.name}` } : e)) : events,
    ...(widget ? { widget } : {}),
    tests: Array.isArray(tests) ? tests.map((t) => (t && typeof t.tool === 'string' && t.tool.startsWith(ns) ? { ...t, tool: t.tool.slice(ns.length) } : t)) : tests,
    persona: { id: persona.id, tools: [...persona.tools], ...(persona.denyTools ? { denyTools: [...persona.denyTools] } : {}) },
  };
}

/** What is wrong with a version before it runs, each a sentence with the fix; empty when nothing. */
export function staticProblems(c: MadeUpgradeContent): string[] {
  const problems: string[] = [];
  if (!c.code.trim()) problems.push('code is empty: write an ES module whose default export is { init(ctx), tools?: { name: handler }, dispose?() }.');
  else if (c.code.length > MAX_CODE_CHARS) problems.push(`code is ${c.code.length} characters; at most ${MAX_CODE_CHARS}.`);
  if (!/^0x[0-9A-Fa-f]{6}$/.test(c.blueprint)) problems.push(`blueprint ${quote(c.blueprint)} is not a blueprint id such as "0xA00001" (create_blueprint gives one).`);
  if (!Array.isArray(c.dependencies) || !c.dependencies.every((d) => typeof d === 'string')) problems.push('dependencies must be a list of upgrade ids.');
  else {
    if (c.dependencies.length > LIMITS.dependencies) problems.push(`${c.dependencies.length} dependencies; at most ${LIMITS.dependencies}.`);
    if (c.dependencies.includes(c.id)) problems.push(`${c.id} cannot depend on itself.`);
  }
  if (!Array.isArray(c.tools)) problems.push('tools must be a list of tool declarations { name, description, inputSchema }.');
  else {
    if (c.tools.length > LIMITS.tools) problems.push(`${c.tools.length} tools; at most ${LIMITS.tools}.`);
    const seen = new Set<string>();
    c.tools.forEach((t, i) => {
      const r = ToolDeclarationSchema.safeParse({ ...(t as object), module: MADE_UPGRADES_ID });
      if (!r.success) problems.push(`tools[${i}]: ${r.error.issues.slice(0, 3).map((x) => `${formatJsonPath(x.path)}: ${x.message}`).join('; ')}.`);
      else if (seen.has(t.name)) problems.push(`tools[${i}]: ${t.name} is declared twice.`);
      else seen.add(t.name);
    });
  }
  // What the bus will refuse at the start (a bad name, a schema that is not one, an event declared twice): said here.
  if (!Array.isArray(c.events)) problems.push('events must be a list of { name, schema? }.');
  else problems.push(...declarationProblems(c.id, c.events));
  if (c.widget !== undefined) {
    const w = c.widget as { title?: unknown; category?: unknown };
    if (!w || typeof w.title !== 'string' || !w.title.trim() || w.title.length > 80) problems.push('widget.title must be a short name for its card (1 to 80 characters).');
    if (!CATEGORIES.includes(w?.category as UpgradeCategory)) problems.push(`widget.category ${quote(w?.category)} is not one of ${CATEGORIES.join(', ')}.`);
  }
  if (!Array.isArray(c.tests)) problems.push('tests must be a list of { name, tool, args, expect? | expect_error? }.');
  else {
    if (c.tests.length > LIMITS.tests) problems.push(`${c.tests.length} tests; at most ${LIMITS.tests}.`);
    const names = new Set<string>();
    const tools = new Set(Array.isArray(c.tools) ? c.tools.map((t) => t?.name) : []);
    c.tests.forEach((t, i) => {
      if (!t || typeof t !== 'object') return problems.push(`tests[${i}] must be an object { name, tool, args }.`);
      if (typeof t.name !== 'string' || !/^[A-Za-z0-9][\w.-]{0,79}$/.test(t.name)) problems.push(`tests[${i}].name ${quote(t.name)} must be a test name (letters, digits, _, . and -): checklist items name it as (test: NAME).`);
      else if (names.has(t.name)) problems.push(`tests[${i}].name ${t.name} is used twice.`);
      else names.add(t.name);
      if (!tools.has(t.tool)) problems.push(`tests[${i}].tool ${quote(t.tool)} is not one of its tools (${[...tools].join(', ') || 'it declares none'}).`);
      if (!t.args || typeof t.args !== 'object' || Array.isArray(t.args)) problems.push(`tests[${i}].args must be an object of the tool's arguments.`);
      if ('expect' in t && 'expect_error' in t) problems.push(`tests[${i}] has both expect and expect_error.`);
      else if ('expect_error' in t && typeof t.expect_error !== 'string') problems.push(`tests[${i}].expect_error must be a string: an error code or a part of the message.`);
    });
  }
  return problems;
}

/** The ToolRunner declarations of a version's tools: namespaced by its id, implemented by MadeUpgrades. */
export function declarationsOf(c: MadeUpgradeContent, timeoutMs: number): ToolDeclaration[] {
  return c.tools.map((t) => ({
    ...t,
    name: fullToolName(c.id, t.name),
    namespace: namespaceOfMadeUpgrade(c.id),
    module: MADE_UPGRADES_ID,
    pythonCallable: t.pythonCallable ?? true,
    timeoutMs: t.timeoutMs ?? timeoutMs,
  }));
}
