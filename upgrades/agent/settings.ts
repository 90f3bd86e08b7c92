import * as z from 'zod';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { AgentModelRef } from '../../src/contracts/agent-contract.ts';

/** Where the dashboard's model choice is kept (never a key: see `keys.ts`). */
export interface SettingsStore {
  load(): AgentModelRef | undefined;
  /** Saves `model`, or forgets the choice with `undefined` (the persona's model applies again). */
  save(model: AgentModelRef | undefined): void;
}

/** localStorage key of the dashboard's model choice. */
export const SETTINGS_KEY = 'armature:agent:settings';

const ModelRefSchema = z.strictObject({
  provider: z.enum(['openai', 'anthropic', 'google', 'openai-compatible', 'replay']),
  model: z.string().min(1),
  baseURL: z.string().min(1).optional(),
});

/** Checks a model choice; throws `INVALID_MODEL` with the offending field. */
export function parseModelRef(value: unknown): AgentModelRef {
  const r = ModelRefSchema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new ArmatureError('INVALID_MODEL', `[agent] invalid model settings at ${issue.path.join('.') || 'the top'}: ${issue.message}`, {
    hint: 'Give a provider (openai-compatible, openai, anthropic, google, replay), a model name (for replay, a recording such as examples/sum-files) and, for openai-compatible, a base URL.',
  });
}

/** Settings for this process only (Node: the CLI passes its choice per run). */
export function memorySettings(): SettingsStore {
  let saved: AgentModelRef | undefined;
  return { load: () => saved, save: (m) => (saved = m) };
}

/** Settings in this browser's storage; a stored value that no longer parses is ignored. */
export function browserSettings(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>): SettingsStore {
  let memory: AgentModelRef | undefined;
  return {
    load() {
      try {
        const raw = storage.getItem(SETTINGS_KEY);
        if (raw === null) return memory;
        return ModelRefSchema.parse(JSON.parse(raw));
      } catch {
        return memory;
      }
    },
    save(model) {
      memory = model;
      try {
        if (model) storage.setItem(SETTINGS_KEY, JSON.stringify(model));
        else storage.removeItem(SETTINGS_KEY);
      } catch {
        // Storage refused (private mode): the choice lasts for this page.
      }
    },
  };
}

/** The model a run uses: the call's fields over the saved choice (or the persona's model). */
export function resolveModel(override: Partial<AgentModelRef> | undefined, saved: AgentModelRef | undefined, persona: AgentModelRef | undefined): Partial<AgentModelRef> | undefined {
  const base = saved ?? persona;
  const fields = Object.fromEntries(Object.entries(override ?? {}).filter(([, v]) => v !== undefined && v !== '')) as Partial<AgentModelRef>;
  if (!Object.keys(fields).length) return base;
  // A base URL belongs to its provider: switching provider starts from scratch.
  const from = fields.provider && fields.provider !== base?.provider ? undefined : base;
  return { ...from, ...fields };
}
