import { z } from 'zod';
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

/** One entry of `modules/upgrades.json`. */
export const UpgradeEntrySchema = z.strictObject({
  id: upgradeId,
  entry: z
    .string()
    .regex(/^upgrades\/[a-z0-9-]+\/index\.ts$/, 'a path of the form "upgrades/<folder>/index.ts"'),
  dependencies: z.array(upgradeId).default([]),
  optionalDependencies: z.array(upgradeId).default([]),
  blueprint: blueprintId,
  category: z.enum(['agent', 'core', 'runtime', 'tools', 'storage', 'knowledge']),
  /**
   * Events the upgrade adds to the system's typed map (by module augmentation of `ArmatureEvents`
   * in its folder), e.g. `made-upgrades:status`. Must agree with its metadata. Default: none.
   */
  events: z.array(z.string().regex(/^[a-z][a-z0-9-]{0,39}:[a-z][a-z0-9-]{0,39}$/, 'an event name "<prefix>:<event>" in kebab-case, e.g. "made-upgrades:status"')).default([]),
  /**
   * The upgrade's early start, `upgrades/<folder>/early-start.ts` in its entry's folder: boot
   * imports it before every entry and calls its `earlyStart(context)` (`EarlyStartModule`). Default: none.
   */
  earlyStart: z
    .string()
    .regex(/^upgrades\/[a-z0-9-]+\/early-start\.ts$/, 'a path of the form "upgrades/<folder>/early-start.ts"')
    .optional(),
}).refine((e) => e.earlyStart === undefined || folderOf(e.earlyStart) === folderOf(e.entry), {
  path: ['earlyStart'],
  error: 'an early start in the folder of the upgrade\'s entry ("upgrades/<folder>/early-start.ts" beside "upgrades/<folder>/index.ts")',
});

function folderOf(path: string): string {
  return path.split('/')[1]!;
}

/** `modules/upgrades.json`. */
export const UpgradeRegistrySchema = z.strictObject({
  upgrades: z.array(UpgradeEntrySchema).min(1),
});

/** A persona: which upgrades an agent gets and which tools it may call. */
export const PersonaSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'a persona id in kebab-case, e.g. "default"'),
  name: z.string().min(1),
  description: z.string().min(1),
  upgrades: z.array(upgradeId).min(1),
  /**
   * Tools the persona may call: names, `"*"` for every tool, `"<namespace>.*"` for every tool of a
   * namespace (an MCP server's), `"<namespace>.<tool>"` for one of them.
   */
  tools: z.array(allowEntry),
  /**
   * Tools the persona may not call even where `tools` allows them (e.g. with `"*"`): names or
   * `"<namespace>.*"`. A persona overlay's `remove_tools` lands here. Default: none.
   */
  denyTools: z.array(allowEntry).optional(),
  /** Skill namespaces the agent is told about. Default: none. */
  skills: z.array(z.string().min(1)).default([]),
  /** MCP servers whose tools this persona gets (needs the McpClient upgrade). Default: none. */
  mcpServers: McpServersSchema.optional(),
  /**
   * What MCP may do for this persona beyond calling tools. Each is off when absent, as before these
   * existed; `modules/personas/default.json` turns them on.
   */
  mcp: z
    .strictObject({
      /** McpClient: offer servers the workspace folder as this client's root (`roots/list`), so a filesystem server can keep to it. Default: false. */
      roots: z.boolean().optional(),
      /** McpClient: forward servers' elicitation requests to the person (the terminal, the dashboard); refused when nobody can answer. Default: false. */
      elicitation: z.boolean().optional(),
      /**
       * McpClient: answer servers' sampling requests with the persona's model — at most
       * `maxRequests` per server while it runs (default 10), each answer at most `maxTokens`
       * (default 2000). Absent: refused.
       */
      sampling: z
        .strictObject({
          maxRequests: z.number().int().min(1).max(10_000).optional(),
          maxTokens: z.number().int().min(1).max(200_000).optional(),
        })
        .optional(),
      /** `armature mcp`: an agent started by an MCP client (`run_agent`) may run on that client's model (sampling) when the persona has none of its own. Default: false. */
      clientModel: z.boolean().optional(),
    })
    .optional(),
  // --- The agent (upgrade Agent) ---
  /** The model the agent talks to; the dashboard and the CLI can override it. Default: none. */
  model: z
    .strictObject({
      provider: z.enum(['openai', 'anthropic', 'google', 'openai-compatible']),
      model: z.string().min(1),
      baseURL: z.url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. "http://127.0.0.1:11434/v1"' }).optional(),
    })
    .optional(),
  /** Model steps per run (or follow-up) before the agent stops. Default: 8. */
  maxSteps: z.number().int().min(1).max(100).optional(),
  /**
   * `code`: the model gets `execute_python` and the skill tools and calls every other tool from
   * Python; `direct`: every allowed tool as its own schema. Default: `code`.
   */
  toolMode: z.enum(['code', 'direct']).optional(),
  // --- end of the agent's fields ---
  // --- Self-modification (upgrades Changes, MadeTools) ---
  /**
   * What the persona's agent may change of the system, per kind: `auto` (a change that passes its
   * gate comes into force), `ask` (it waits for a person's approval on the dashboard or with
   * `armature approve`), `off` (refused). Each kind defaults to `ask`.
   */
  selfModification: z
    .strictObject({
      tools: SELF_MODIFICATION_POLICY.optional(),
      upgrades: SELF_MODIFICATION_POLICY.optional(),
      blueprints: SELF_MODIFICATION_POLICY.optional(),
      persona: SELF_MODIFICATION_POLICY.optional(),
    })
    .optional(),
  // --- end of self-modification ---
  // --- Confinement ---
  /**
   * What code the agent runs (Python's `fetch`, agent-made workers) may reach on the network:
   * `"none"`, or origins such as `"https://api.example.com"` (scheme, host, optional port; no path).
   * The host performs every such request and refuses the rest. Absent means `"none"`.
   */
  network: z
    .union([
      z.literal('none'),
      z.array(
        z
          .string()
          .regex(/^https?:\/\/[^/?#@\s]+\/?$/, 'an origin such as "https://api.example.com" (scheme, host, optional port; no path)'),
      ),
    ])
    .optional(),
  // --- end of confinement's fields ---
});

/** A JSON Schema object, as tools declare their input. Checked further when the tool registers. */
const JsonSchemaObject = z
  .looseObject({ type: z.literal('object') })
  .describe('a JSON Schema with "type": "object"');

/** MCP tool annotations: hints about a tool's behaviour. */
export const ToolAnnotationsSchema = z.strictObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** One tool declaration in `modules/tools-read.json` or `modules/tools-write.json`. */
export const ToolDeclarationSchema = z.strictObject({
  name: toolName,
  description: z.string().min(1),
  inputSchema: JsonSchemaObject,
  /** The upgrade that implements the tool. */
  module: upgradeId,
  /** False for tools that must never be called from Python (e.g. tools that run Python). Default: true. */
  pythonCallable: z.boolean().default(true),
  /** Per-call timeout for this tool in ms. Default: the ToolRunner's (30 s). */
  timeoutMs: z.number().int().positive().optional(),
  /** Shape of the tool's value, when it is known (MCP `outputSchema`). Default: none. */
  outputSchema: JsonSchemaObject.optional(),
  /**
   * Behaviour hints. Default: derived from the manifest file — `readOnlyHint: true` in
   * tools-read.json; `readOnlyHint: false, destructiveHint: true` in tools-write.json.
   */
  annotations: ToolAnnotationsSchema.optional(),
  /**
   * Python namespace (`from tools.<namespace> import ...`). Set for tools registered at run time
   * under a namespace, whose names are `<namespace>.<tool>`. Default: from the module id.
   */
  namespace: z.string().regex(TOOL_NAMESPACE, 'a namespace in snake_case').optional(),
});

/** A tool manifest file. */
export const ToolManifestSchema = z.array(ToolDeclarationSchema);

export type UpgradeEntry = z.infer<typeof UpgradeEntrySchema>;
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
