import * as z from 'zod';
import { ManifestError } from './errors.ts';
import { McpServersSchema, TOOL_NAMESPACE } from './mcp-servers.ts';

const upgradeId = z
  .string()
  .regex(/^[A-Z][A-Za-z0-9]*$/, 'an upgrade id in PascalCase, e.g. "ToolRunner"');
const blueprintId = z.string().regex(/^0x[0-9A-F]{6}$/, 'a blueprint id: 0x and six upper-case hex digits, e.g. "0x000031"');
const toolName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a tool name in snake_case, e.g. "read_file"');

/**
 * Names of tools registered at run time under a namespace (MCP servers): `<namespace>.<tool>`, the
 * namespace in snake_case and the tool's own name after the dot as its server spells it (letters,
 * digits, `_`, `-`, `.`), at most 128 characters in all. Manifest tools keep plain snake_case
 * names, so the two kinds never collide.
 */
export const NAMESPACED_TOOL_NAME = /^(?=.{3,128}$)[a-z][a-z0-9_]*\.[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Whether `name` is a valid tool name: snake_case (manifests) or `<namespace>.<tool>`. */
export function isValidToolName(name: string): boolean {
  return /^[a-z][a-z0-9_]*$/.test(name) || NAMESPACED_TOOL_NAME.test(name);
}

/** A persona allow-list entry: `*`, a tool name, `<namespace>.*` or `<namespace>.<tool>`. */
const allowEntry = z.union([
  z.literal('*'),
  toolName,
  z.string().regex(/^[a-z][a-z0-9_]*\.\*$/),
  z.string().regex(NAMESPACED_TOOL_NAME),
], { error: 'a tool name in snake_case ("read_file"), "*", "<namespace>.*" ("memory.*") or "<namespace>.<tool>" ("memory.read_graph")' });

/** A persona's policy for one kind of self-modification. */
const SELF_MODIFICATION_POLICY = z.enum(['auto', 'ask', 'off'], { error: 'one of "auto", "ask", "off"' });

/**
 * An entry of a `modules/upgrades.json`. The package's upgrades are TypeScript (its build bundles
 * them); a user's root may write theirs in JavaScript, which any Node and browser imports as is.
 */
function upgradeEntrySchema(ext: string, extText: string) {
  return z
    .strictObject({
      id: upgradeId.describe('PascalCase id, e.g. "Workspace": what personas, dependencies, tool declarations (`module`) and `sys.resolve(id)` name it by.'),
      entry: z
        .string()
        .regex(new RegExp(`^upgrades/[a-z0-9-]+/index\\.(${ext})$`), `a path of the form "upgrades/<folder>/index.${extText}"`)
        .describe(`Its module, relative to the folder holding \`modules/\`: "upgrades/<folder>/index.${extText}", exporting \`metadata\` and \`factory(deps, context)\` (and \`configSchema\` for its options).`),
      dependencies: z.array(upgradeId).default([]).describe('Upgrades it needs: loaded first, their APIs handed to its factory (`deps.<Id>`).'),
      optionalDependencies: z.array(upgradeId).default([]).describe('Upgrades it uses when the persona loads them (`deps.<Id>` is undefined otherwise).'),
      blueprint: blueprintId.describe('The id of the blueprint it is built from (`blueprints/<id>-*.md`).'),
      category: z.enum(['agent', 'core', 'runtime', 'tools', 'storage', 'knowledge']).describe('Where its card goes on the dashboard.'),
      events: z
        .array(z.string().regex(/^[a-z][a-z0-9-]{0,39}:[a-z][a-z0-9-]{0,39}$/, 'an event name "<prefix>:<event>" in kebab-case, e.g. "made-upgrades:status"'))
        .default([])
        .describe('Events it adds to the typed event map (module augmentation of `ArmatureEvents` in its folder), e.g. "made-upgrades:status"; must agree with its metadata.'),
      earlyStart: z
        .string()
        .regex(new RegExp(`^upgrades/[a-z0-9-]+/early-start\\.(${ext})$`), `a path of the form "upgrades/<folder>/early-start.${extText}"`)
        .optional()
        .describe('Its early start, `upgrades/<folder>/early-start.ts` beside its entry: boot imports it before any entry and calls `earlyStart(context)`, so slow work overlaps the rest of boot. Default: none.'),
    })
    .refine((e) => e.earlyStart === undefined || folderOf(e.earlyStart) === folderOf(e.entry), {
      path: ['earlyStart'],
      error: 'an early start in the folder of the upgrade\'s entry ("upgrades/<folder>/early-start.ts" beside "upgrades/<folder>/index.ts")',
    });
}

/** One entry of the package's `modules/upgrades.json`. */
export const UpgradeEntrySchema = upgradeEntrySchema('ts', 'ts');

/** One entry of a user's root's `modules/upgrades.json` (`armature --root DIR`). */
export const RootUpgradeEntrySchema = upgradeEntrySchema('js|mjs|ts', 'js');

function folderOf(path: string): string {
  return path.split('/')[1]!;
}

/** `modules/upgrades.json`. */
export const UpgradeRegistrySchema = z.strictObject({
  upgrades: z.array(UpgradeEntrySchema).min(1).describe('Every upgrade, one entry each.'),
});

/** A user's root's `modules/upgrades.json`: its own upgrades (none is fine: a root may hold only personas). */
export const RootRegistrySchema = z.strictObject({
  upgrades: z.array(RootUpgradeEntrySchema),
});

/**
 * A persona (`modules/personas/<id>.json`): which upgrades an agent gets and which tools it may
 * call. Each field's description is the reference (docs/manifests.md is generated from them).
 */
export const PersonaSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'a persona id in kebab-case, e.g. "default"').describe('Kebab-case id, the file\'s name without `.json` (`--persona ID`, `boot({ persona })`).'),
  name: z.string().min(1).describe('The name shown on the dashboard and in the agent\'s prompt ("You are <name>").'),
  description: z.string().min(1).describe('One or two sentences on what the persona is for.'),
  upgrades: z.array(upgradeId).min(1).describe('The upgrades it loads, by id (`modules/upgrades.json`); their dependencies must be among them.'),
  tools: z
    .array(allowEntry)
    .describe('The tools it may call: names, `"*"` for every tool, `"<namespace>.*"` for every tool of a namespace (an MCP server\'s), `"<namespace>.<tool>"` for one of them.'),
  denyTools: z
    .array(allowEntry)
    .optional()
    .describe('Tools it may not call even where `tools` allows them (e.g. with `"*"`): names or `"<namespace>.*"`. A persona overlay\'s `remove_tools` lands here. Default: none.'),
  skills: z.array(z.string().min(1)).default([]).describe('Skill namespaces the agent is told about (`list_skills`, `read_skill`).'),
  mcpServers: McpServersSchema.optional().describe('MCP servers whose tools it gets, in the `mcpServers` format of MCP clients (needs the McpClient upgrade). Default: none.'),
  mcp: z
    .strictObject({
      roots: z
        .boolean()
        .optional()
        .describe('McpClient: offer servers the workspace folder as this client\'s root (`roots/list`), so a filesystem server can keep to it. Default: false.'),
      elicitation: z
        .boolean()
        .optional()
        .describe('McpClient: forward servers\' elicitation requests to the person (the terminal, the dashboard); refused when nobody can answer. Default: false.'),
      sampling: z
        .strictObject({
          maxRequests: z.number().int().min(1).max(10_000).optional().describe('Sampling requests answered per server while it runs. Default: 10.'),
          maxTokens: z.number().int().min(1).max(200_000).optional().describe('Tokens at most in one answer. Default: 2000.'),
        })
        .optional()
        .describe('McpClient: answer servers\' sampling requests with the persona\'s model, counted and bounded. Absent: refused.'),
      clientModel: z
        .boolean()
        .optional()
        .describe('`armature mcp`: an agent started by an MCP client (`run_agent`) may run on that client\'s model (sampling) when the persona has none of its own. Default: false.'),
    })
    .optional()
    .describe('What MCP may do for this persona beyond calling tools; each is off when absent (`modules/personas/default.json` turns them on).'),
  // --- The agent (upgrade Agent) ---
  model: z
    .strictObject({
      provider: z.enum(['openai', 'anthropic', 'google', 'openai-compatible', 'replay']).describe('The AI SDK provider, or `replay`: a recorded run played back (no network, no key; `model` is the recording\'s path).'),
      model: z.string().min(1).describe('The provider\'s model id, e.g. "gpt-4o-mini" or "qwen2.5".'),
      baseURL: z.url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. "http://127.0.0.1:11434/v1"' }).optional().describe('The server\'s URL (required for openai-compatible), e.g. "http://127.0.0.1:11434/v1".'),
    })
    .optional()
    .describe('Agent: the model it talks to; the dashboard and the CLI (`--model`, `--base-url`) can override it. Default: none.'),
  maxSteps: z.number().int().min(1).max(100).optional().describe('Agent: model steps per run (or follow-up) before it stops. Default: 8.'),
  toolMode: z
    .enum(['code', 'direct'])
    .optional()
    .describe('Agent: `code` gives the model `execute_python` and the skill tools, and it calls every other tool from Python; `direct` gives every allowed tool as its own schema. Default: `code`.'),
  // --- end of the agent's fields ---
  // --- Self-modification (upgrades Changes, MadeTools) ---
  selfModification: z
    .strictObject({
      tools: SELF_MODIFICATION_POLICY.optional().describe('Agent-made tools. Default: ask.'),
      upgrades: SELF_MODIFICATION_POLICY.optional().describe('Agent-made upgrades. Default: ask.'),
      blueprints: SELF_MODIFICATION_POLICY.optional().describe('Agent-made blueprints. Default: ask.'),
      persona: SELF_MODIFICATION_POLICY.optional().describe('Persona overlays (what an agent adds to this persona). Default: ask.'),
    })
    .optional()
    .describe('What its agent may change of the system, per kind: `auto` (a change that passes its gate comes into force), `ask` (it waits for a person\'s approval on the dashboard or with `armature approve`), `off` (refused). Each kind defaults to `ask`.'),
  // --- end of self-modification ---
  // --- Confinement ---
  network: z
    .union([
      z.literal('none'),
      z.array(
        z
          .string()
          .regex(/^https?:\/\/[^/?#@\s]+\/?$/, 'an origin such as "https://api.example.com" (scheme, host, optional port; no path)'),
      ),
    ])
    .optional()
    .describe('What code its agent runs (Python\'s `fetch`, agent-made workers) may reach: `"none"`, or origins such as `"https://api.example.com"` (scheme, host, optional port; no path). The host performs every such request and refuses the rest. Default: `"none"`.'),
  // --- end of confinement's fields ---
});

/** A JSON Schema object, as tools declare their input. Checked further when the tool registers. */
const JsonSchemaObject = z
  .looseObject({ type: z.literal('object') })
  .describe('a JSON Schema with "type": "object"');

/** MCP tool annotations: hints about a tool's behaviour. */
export const ToolAnnotationsSchema = z.strictObject({
  title: z.string().optional().describe('A human-friendly name.'),
  readOnlyHint: z.boolean().optional().describe('The tool changes nothing.'),
  destructiveHint: z.boolean().optional().describe('The tool may delete or overwrite.'),
  idempotentHint: z.boolean().optional().describe('Calling it twice with the same arguments does no more than once.'),
  openWorldHint: z.boolean().optional().describe('The tool reaches outside the system (the network, other services).'),
});

/**
 * One tool declaration in `modules/tools-read.json` or `modules/tools-write.json`. Each field's
 * description is the reference (docs/manifests.md is generated from them).
 */
export const ToolDeclarationSchema = z.strictObject({
  name: toolName.describe('The tool\'s name, snake_case: `executeTool(name)`, `call_tool("name")`, and its Python function.'),
  description: z.string().min(1).describe('What it does, for the model (its first sentence goes into the prompt\'s index).'),
  inputSchema: JsonSchemaObject.describe('Its arguments, a JSON Schema with `"type": "object"`: the ToolRunner validates every call against it.'),
  module: upgradeId.describe('The upgrade that implements it (by id), whose factory returns a handler of this name in `tools`; boot checks declared and implemented tools agree. Its Python namespace is this id in snake_case without a `_tool` suffix (`Tally` -> `from tools.tally import ...`).'),
  pythonCallable: z.boolean().default(true).describe('Whether Python may call it with `call_tool` (false for tools that run Python, whose call would wait on itself).'),
  timeoutMs: z.number().int().positive().optional().describe('Time limit of a call, in ms. Default: the ToolRunner\'s (30000).'),
  outputSchema: JsonSchemaObject.optional().describe('The shape of its value, when known (an MCP client gets it as `outputSchema`). Default: none.'),
  annotations: ToolAnnotationsSchema.optional().describe('Behaviour hints. Default: from the file — `readOnlyHint: true` in tools-read.json; `readOnlyHint: false, destructiveHint: true` in tools-write.json.'),
  namespace: z
    .string()
    .regex(TOOL_NAMESPACE, 'a namespace in snake_case')
    .optional()
    .describe('Its Python namespace (`from tools.<namespace> import ...`), for tools registered at run time under one (`<namespace>.<tool>`). Default: from `module`.'),
  audience: z
    .enum(['person'], { error: '"person", or leave it out' })
    .optional()
    .describe('`person`: a person\'s power (approve, reject, roll back a change; interrupt the console): the ToolRunner runs it only for the callers `ui` (the dashboard) and `cli` (the command line), and it is never offered to agents, MCP clients, Python\'s `call_tool` or skills; the persona\'s allow-list does not apply to it. Default: every caller the allow-list admits.'),
});

/** A tool manifest file. */
export const ToolManifestSchema = z.array(ToolDeclarationSchema);

/** An upgrade's registry entry, with where its modules are when it comes from a user's root. */
export type UpgradeEntry = z.infer<typeof UpgradeEntrySchema> & {
  /** For an upgrade of a user's root: the URL `entry` and `earlyStart` are resolved against. Default: the package's own. */
  base?: string;
};
export type UpgradeRegistry = z.infer<typeof UpgradeRegistrySchema>;
export type Persona = z.infer<typeof PersonaSchema>;
export type ToolDeclaration = z.infer<typeof ToolDeclarationSchema>;

/**
 * Parses `text` as JSON and validates it with `schema`. Throws {@link ManifestError} naming the
 * file, the JSON path of every problem and what was expected there.
 */
export function parseManifest<S extends z.ZodType>(file: string, text: string, schema: S): z.infer<S> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ManifestError(file, `not valid JSON (${(e as Error).message})`);
  }
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: formatJsonPath(i.path), message: i.message }));
  throw new ManifestError(file, issues.map((i) => `at ${i.path}: ${i.message}`).join('; '), { issues });
}

/** `$.upgrades[2].id` style path. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`;
  return out;
}
