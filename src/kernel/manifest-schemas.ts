import { z } from 'zod';
import { ManifestError } from './errors.ts';

const upgradeId = z
  .string()
  .regex(/^[A-Z][A-Za-z0-9]*$/, 'an upgrade id in PascalCase, e.g. "ToolRunner"');
const blueprintId = z.string().regex(/^0x[0-9A-F]{6}$/, 'a blueprint id: 0x and six upper-case hex digits, e.g. "0x000031"');
const toolName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a tool name in snake_case, e.g. "read_file"');

/** One entry of `modules/upgrades.json`. */
export const UpgradeEntrySchema = z.strictObject({
  id: upgradeId,
  entry: z
    .string()
    .regex(/^upgrades\/[a-z0-9-]+\/index\.ts$/, 'a path of the form "upgrades/<folder>/index.ts"'),
  dependencies: z.array(upgradeId).default([]),
  optionalDependencies: z.array(upgradeId).default([]),
  blueprint: blueprintId,
  category: z.enum(['core', 'runtime', 'tools', 'storage', 'knowledge']),
});

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
  /** Tool names the persona may call; `"*"` allows every tool its upgrades declare. */
  tools: z.array(z.union([z.literal('*'), toolName])),
  /** Skill namespaces the agent is told about. Default: none. */
  skills: z.array(z.string().min(1)).default([]),
});

/** A JSON Schema object, as tools declare their input. Checked further when the tool registers. */
const JsonSchemaObject = z
  .looseObject({ type: z.literal('object') })
  .describe('a JSON Schema with "type": "object"');

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
