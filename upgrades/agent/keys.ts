import { ArmatureError } from '../../src/kernel/errors.ts';
import type { ProviderName } from '../../src/contracts/agent-contract.ts';

/** The environment variable that holds each provider's key in Node. */
export const KEY_VARIABLES: Readonly<Record<ProviderName, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
  'openai-compatible': 'ARMATURE_API_KEY',
  // A replay needs no key: nothing leaves the machine.
  replay: '',
};

/** Where provider keys come from. */
export interface KeySource {
  /** `environment` in Node, `browser` on the dashboard. */
  readonly storage: 'environment' | 'browser';
  /** The key for `provider`, if one is set. */
  get(provider: ProviderName): string | undefined;
  /** Stores (or, with `''`, forgets) a key. Throws `KEYS_FROM_ENVIRONMENT` where keys come from the environment. */
  set(provider: ProviderName, key: string): void;
}

/** Keys from environment variables ({@link KEY_VARIABLES}); read at each run, so a changed variable counts. */
export function environmentKeys(env: Readonly<Record<string, string | undefined>>): KeySource {
  return {
    storage: 'environment',
    get: (provider) => (KEY_VARIABLES[provider] ? env[KEY_VARIABLES[provider]]?.trim() || undefined : undefined),
    set(provider) {
      throw new ArmatureError('KEYS_FROM_ENVIRONMENT', `[agent] in Node the ${provider} key comes from the environment, not from a call`, {
        hint: `Set ${KEY_VARIABLES[provider]} before starting Armature.`,
      });
    },
  };
}

/** localStorage key of a provider's key on the dashboard. */
export const browserKeyName = (provider: ProviderName) => `armature:agent:key:${provider}`;

/**
 * Keys kept in this browser's storage (localStorage): never in the workspace, IndexedDB, an event
 * or the server. A storage that refuses (private mode) keeps the key for this page only.
 */
export function browserKeys(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>): KeySource {
  const fallback = new Map<ProviderName, string>();
  return {
    storage: 'browser',
    get(provider) {
      try {
        return storage.getItem(browserKeyName(provider)) || fallback.get(provider) || undefined;
      } catch {
        return fallback.get(provider);
      }
    },
    set(provider, key) {
      const value = key.trim();
      if (value) fallback.set(provider, value);
      else fallback.delete(provider);
      try {
        if (value) storage.setItem(browserKeyName(provider), value);
        else storage.removeItem(browserKeyName(provider));
      } catch {
        // Storage refused: the key lives in memory for this page.
      }
    },
  };
}

const MASK = '[redacted key]';

/**
 * Replaces every occurrence of each secret in `text`. Secrets shorter than 8 characters are left
 * alone: masking every "a" of a message would say nothing and protect nothing.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 8 && out.includes(s)) out = out.split(s).join(MASK);
  return out;
}

/** `value` with every secret masked in every string it holds (keys of objects included); shares nothing it changed. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (!secrets.some((s) => s.length >= 8)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, secrets);
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x) => {
        const y = walk(x);
        if (y !== x) changed = true;
        return y;
      });
      return changed ? out : v;
    }
    if (v && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const key = redactText(k, secrets);
        const y = walk(x);
        if (y !== x || key !== k) changed = true;
        out[key] = y;
      }
      return changed ? out : v;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * Masks keys in text that arrives in pieces, as a model streams it: a key a provider echoes split
 * across pieces (`"sk-MAR" | "KER-abc1" | "23XYZ"`) is masked whole, where masking each piece
 * alone would pass every part of it. It holds back the end of what it was given while that end
 * could still be the start of a key (never more than the longest key, less one character), lets
 * the next piece decide, and gives back what it holds at {@link flush} (the end of a step).
 */
export class StreamRedactor {
  private held = '';
  private readonly secrets: readonly string[];

  constructor(secrets: readonly string[]) {
    this.secrets = secrets.filter((s) => s.length >= 8);
  }

  /** The text that can be shown now, keys masked: what was held and `piece`, less the tail it holds back. */
  push(piece: string): string {
    if (!this.secrets.length) return piece;
    const text = redactText(this.held + piece, this.secrets);
    const keep = this.startOfKey(text);
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** What it holds (no key can complete it now); it holds nothing after. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  /** Length of the longest end of `text` that is the start of a key, shorter than that key. */
  private startOfKey(text: string): number {
    let keep = 0;
    for (const s of this.secrets) {
      for (let n = Math.min(s.length - 1, text.length); n > keep; n--) {
        if (text.endsWith(s.slice(0, n))) {
          keep = n;
          break;
        }
      }
    }
    return keep;
  }
}
