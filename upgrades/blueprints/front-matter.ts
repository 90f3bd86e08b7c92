import { parse } from 'yaml';
import * as z from 'zod';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { formatJsonPath } from '../../src/kernel/manifest-schemas.ts';

const idPattern = /^0x[0-9A-F]{6}$/;

/** The front matter every blueprint starts with. */
export const BlueprintFrontMatterSchema = z.strictObject({
  id: z.string().regex(idPattern, 'a blueprint id: 0x and six upper-case hex digits, e.g. "0x000031"'),
  title: z.string().min(1),
  /** Upgrade id this blueprint builds, or `kernel` for parts of `src/`. */
  target: z.string().min(1),
  prerequisites: z.array(z.string().regex(idPattern, 'a blueprint id')).default([]),
  artifacts: z.array(z.string().min(1)).default([]),
});

export type BlueprintFrontMatter = z.infer<typeof BlueprintFrontMatterSchema>;

/** A parsed blueprint. */
export interface Blueprint extends BlueprintFrontMatter {
  /**
   * Project-relative file, e.g. `blueprints/0x000031-python-tool.md`; for an agent-made blueprint,
   * where its version lives: `changes:<first 12 hex of its sha256>`.
   */
  file: string;
  /** Markdown after the front matter. */
  body: string;
  /** `project`: a file in `blueprints/`; `agent`: made with create_blueprint. */
  origin: 'project' | 'agent';
  /** An agent-made blueprint's version in force. */
  version?: number;
  /** The change that brought that version into force. */
  change?: string;
}

/**
 * Splits `---`-delimited YAML front matter from the markdown body and validates it.
 * YAML's failsafe schema keeps every scalar a string, so `0x000031` stays an id, not a number.
 */
export function parseBlueprint(file: string, text: string): Blueprint {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new ArmatureError('BLUEPRINT_INVALID', `[blueprints] ${file}: must start with YAML front matter between "---" lines`);
  let data: unknown;
  try {
    data = parse(match[1]!, { schema: 'failsafe' });
  } catch (e) {
    throw new ArmatureError('BLUEPRINT_INVALID', `[blueprints] ${file}: front matter is not valid YAML (${(e as Error).message})`);
  }
  const result = BlueprintFrontMatterSchema.safeParse(data);
  if (!result.success) {
    const why = result.error.issues.map((i) => `at ${formatJsonPath(i.path)}: ${i.message}`).join('; ');
    throw new ArmatureError('BLUEPRINT_INVALID', `[blueprints] ${file}: ${why}`);
  }
  return { ...result.data, file, body: match[2]!.trim(), origin: 'project' };
}
