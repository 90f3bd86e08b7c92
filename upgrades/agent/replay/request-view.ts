/**
 * What a replay compares: a model request seen the same way when it is recorded and when it is
 * replayed. Values that differ from one run to the next by nature — durations, timestamps, change
 * ids, run ids — are {@link normalize}d before anything is compared or hashed, so a replay checks
 * what the tools answered, not when or under which id.
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { RecordedRequest } from '../../../src/contracts/recording-format.ts';

/** Keys whose values are times or durations: the same run gives others each time. */
export const VOLATILE_KEYS: ReadonlySet<string> = new Set(['executionTime', 'durationMs', 'ms', 'at', 'mtime', 'activatedAt', 'decidedAt', 'endedAt', 'startedAt', 'updatedAt', 'createdAt', 'recordedAt']);

/** Ids a run makes anew each time, as they appear inside text. */
const VOLATILE_TEXT: readonly [RegExp, string][] = [
  [/\brun-\d{8}-\d{6}-[a-z0-9]{6}\b/g, 'run-…'],
  [/\bc[0-9a-f]{8}\b/g, 'c…'],
  [/\b\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?Z\b/g, '<time>'],
];

/** `value` with times, durations and per-run ids replaced by placeholders; shares nothing with it. */
export function normalize(value: unknown): unknown {
  if (typeof value === 'string') return VOLATILE_TEXT.reduce((s, [re, to]) => s.replace(re, to), value);
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined || key === 'providerOptions' || key === 'providerMetadata') continue;
      out[key] = VOLATILE_KEYS.has(key) && (typeof v === 'number' || typeof v === 'string') ? '<varies>' : normalize(v);
    }
    return out;
  }
  return value;
}

/** `sha256:<hex>` of `value`'s normalized JSON (keys sorted). */
export async function digestOf(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(normalize(value)) ?? 'null');
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A prompt message without provider options (which say nothing about what the model was told). */
function plainMessage(m: LanguageModelV3CallOptions['prompt'][number]): unknown {
  const { providerOptions: _o, ...rest } = m;
  return Array.isArray(rest.content) ? { ...rest, content: rest.content.map((p) => { const { providerOptions: _p, ...part } = p as { providerOptions?: unknown }; return part; }) } : rest;
}

/**
 * A model request as a recording keeps it: the digests of the whole request, of its system prompt
 * and of its tools, and the messages after the model's last answer — the goal on a turn's first
 * step, the tool results it is about to read on the others.
 */
export async function describeRequest(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): Promise<RecordedRequest> {
  const messages = options.prompt.map(plainMessage);
  const system = options.prompt.filter((m) => m.role === 'system').map((m) => m.content);
  const lastAnswer = options.prompt.findLastIndex((m) => m.role === 'assistant');
  const fresh = messages.slice(lastAnswer + 1).filter((m) => (m as { role: string }).role !== 'system');
  const tools = (options.tools ?? []).map((t) => ({ ...t, providerOptions: undefined }));
  const [digest, systemDigest, toolsDigest] = await Promise.all([digestOf({ system, tools, messages }), digestOf(system), digestOf(tools)]);
  return { digest, system: systemDigest, tools: toolsDigest, messages: fresh };
}

/** Where two values first differ: the JSON path and both values there. */
export interface Difference {
  path: string;
  recorded: unknown;
  actual: unknown;
}

/** The first place `actual` differs from `recorded` (both normalized first), or `undefined`. */
export function firstDifference(recorded: unknown, actual: unknown, path = '$'): Difference | undefined {
  return walk(normalize(recorded), normalize(actual), path);
}

function walk(a: unknown, b: unknown, path: string): Difference | undefined {
  if (a === b) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return { path: `${path}[${i}]`, recorded: a[i], actual: b[i] };
      const d = walk(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], /^[A-Za-z_]\w*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
      if (d) return d;
    }
    return undefined;
  }
  return { path, recorded: a, actual: b };
}
