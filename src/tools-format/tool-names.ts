/**
 * Tool-name rules of each provider, and aliases for names that break them: a namespaced MCP tool
 * (`memory.create_entities`) has a dot OpenAI and Anthropic reject, and a long one can pass their
 * 64 characters. Aliases are stable (the same name always gets the same alias) and unique within
 * one conversion; the alias map turns a provider's call back into the tool's own name.
 */

/** The tool formats Armature converts to. */
export type ToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';

/** Every {@link ToolFormat}, in display order. */
export const TOOL_FORMATS: readonly ToolFormat[] = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];

/** A provider's rule for tool names. */
export interface NameRule {
  /** What a valid name matches. */
  pattern: RegExp;
  /** Longest valid name. */
  maxLength: number;
  /** One character that is never valid (replaced by `_` in an alias). */
  invalid: RegExp;
  /** Whether a name must start with a letter or an underscore. */
  letterFirst: boolean;
  /** The rule in words, for messages. */
  text: string;
}

const OPENAI: NameRule = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64, invalid: /[^a-zA-Z0-9_-]/, letterFirst: false, text: 'a-z, A-Z, 0-9, _ and -, at most 64 characters' };

/** Name rules by format, as each provider documents them. */
export const NAME_RULES: Readonly<Record<ToolFormat, NameRule>> = {
  openai: OPENAI,
  'openai-responses': OPENAI,
  anthropic: { ...OPENAI },
  gemini: {
    pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
    maxLength: 64,
    invalid: /[^a-zA-Z0-9_.:-]/,
    letterFirst: true,
    text: 'starts with a letter or _, then a-z, A-Z, 0-9, _, ., : and -, at most 64 characters',
  },
  mcp: { pattern: /^[a-zA-Z0-9_./-]{1,128}$/, maxLength: 128, invalid: /[^a-zA-Z0-9_./-]/, letterFirst: false, text: 'a-z, A-Z, 0-9, _, -, . and /, at most 128 characters' },
};

/** FNV-1a, 32 bits, as 8 hex digits: a short stable tag that needs no crypto API. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Provider names for `names`, in order: a valid name is kept; an invalid one gets an alias (`.`
 * becomes `__`, other invalid characters `_`; a name still too long or taken is cut and tagged
 * with a hash of the original). Returns the names and the map from alias to original.
 */
export function aliasNames(names: readonly string[], rule: NameRule): { names: string[]; aliases: Record<string, string> } {
  const taken = new Set(names.filter((n) => rule.pattern.test(n)));
  const aliases: Record<string, string> = {};
  const invalid = new RegExp(rule.invalid.source, 'g');
  const dotInvalid = new RegExp(rule.invalid.source).test('.');
  const out = names.map((name) => {
    if (rule.pattern.test(name)) return name;
    let alias = (dotInvalid ? name.replace(/\./g, '__') : name).replace(invalid, '_');
    if (rule.letterFirst && !/^[a-zA-Z_]/.test(alias)) alias = `_${alias}`;
    if (!alias || alias.length > rule.maxLength || taken.has(alias) || !rule.pattern.test(alias)) {
      const tag = `_${shortHash(name)}`;
      alias = alias.slice(0, rule.maxLength - tag.length) + tag;
    }
    taken.add(alias);
    aliases[alias] = name;
    return alias;
  });
  return { names: out, aliases };
}

/** The tool's own name for a name a provider called: the alias map's entry, else the name itself. */
export function toolNameFromProvider(name: string, aliases: Readonly<Record<string, string>>): string {
  return Object.hasOwn(aliases, name) ? aliases[name]! : name;
}
