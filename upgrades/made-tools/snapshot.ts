import type { LiveToolInfo } from './tool-kind.ts';

/** Most tools the snapshot lists. */
const MAX_TOOLS = 200;

/** What the MadeTools card shows: each agent-made tool in force, its calls, errors and canary. */
export interface MadeToolsSnapshot {
  tools: { name: string; language: string; version: number; change: string; description: string; calls: number; errors: number; canary: { watched: number; failures: number; of: number } }[];
  /** Tools in force, listed or not. */
  total: number;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The MadeTools snapshot of `live`. */
export function madeToolsSnapshot(live: readonly (LiveToolInfo & { calls: number; errors: number })[]): MadeToolsSnapshot {
  return {
    tools: live.slice(0, MAX_TOOLS).map((t) => ({
      name: t.name,
      language: t.language,
      version: t.version,
      change: t.change,
      description: clip(t.description, 300),
      calls: t.calls,
      errors: t.errors,
      canary: { watched: t.canary.watched, failures: t.canary.failures, of: t.canary.of },
    })),
    total: live.length,
  };
}
