/**
 * How long an upgrade's `init` may take at boot. An init that never finishes (an agent-made
 * upgrade whose init loops, a built-in one waiting on something that never answers) would hold
 * the boot — and every command after it — for as long as it runs: past its limit the upgrade is
 * marked failed, with the limit and how to change it, and the boot goes on at once.
 *
 * The limit of an upgrade (or of a part an upgrade starts, `upgrade:notes-index`) is, first found:
 * `boot({ initTimeouts: { [id]: ms } })`, a person's choice for that one; what the upgrade asks
 * for its own init when that waits on work bounded by limits of its own (the McpClient's servers'
 * start, MadeUpgrades' upgrades); `boot({ initTimeoutMs })` for every upgrade; 2000 ms.
 */
import { quote, timeoutProblem } from '../bounded.ts';
import { ArmatureError } from '../errors.ts';

/** Default of `BootOptions.initTimeoutMs`. */
export const DEFAULT_INIT_TIMEOUT_MS = 2000;

/** The init limits of one boot, checked. */
export interface InitLimits {
  /** Every upgrade's and part's, unless set for it. */
  readonly all: number;
  /** By upgrade or part id. */
  readonly byId: Readonly<Record<string, number>>;
}

/**
 * Checks the boot's `initTimeoutMs` and `initTimeouts`: a value that is not a time limit a timer
 * holds (1 to 2147483647 ms) throws `INVALID_CONFIG` naming it, the value and what to pass.
 */
export function initLimits(initTimeoutMs: unknown, initTimeouts: unknown): InitLimits {
  const bad = (name: string, value: unknown, problem: string) =>
    new ArmatureError('INVALID_CONFIG', `[boot] ${problem}`, { hint: `Pass ${name} as a number of milliseconds (default ${DEFAULT_INIT_TIMEOUT_MS}), or leave it out; got ${quote(value)}.` });
  const all = initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS;
  const problem = timeoutProblem(all, 'initTimeoutMs');
  if (problem) throw bad('initTimeoutMs', all, problem);
  if (initTimeouts !== undefined && (typeof initTimeouts !== 'object' || initTimeouts === null || Array.isArray(initTimeouts))) {
    throw bad('initTimeouts', initTimeouts, 'initTimeouts must be an object of upgrade ids to milliseconds, e.g. { "McpClient": 60000, "upgrade:notes-index": 5000 }');
  }
  const byId: Record<string, number> = Object.create(null);
  for (const [id, ms] of Object.entries(initTimeouts ?? {})) {
    const p = timeoutProblem(ms, `initTimeouts[${quote(id, 60)}]`);
    if (p) throw bad(`initTimeouts[${quote(id, 60)}]`, ms, p);
    byId[id] = ms as number;
  }
  return { all: all as number, byId };
}

/** The limit of `id`'s init: set for it, else what it asks (`asked`), else every upgrade's. */
export function initLimitOf(limits: InitLimits, id: string, asked?: number): number {
  return limits.byId[id] ?? asked ?? limits.all;
}

/** How a person changes `id`'s limit, for messages. */
export function howToRaise(id: string, ms: number): string {
  const more = Math.max(ms * 2, 5000);
  return `if its init needs longer, raise the limit: boot({ initTimeouts: { ${JSON.stringify(id)}: ${more} } }) for it alone, or boot({ initTimeoutMs }) (armature --init-timeout MS) for every upgrade`;
}

/**
 * Runs `init` within `ms`: resolves when it does, rejects with what it rejects with, or with
 * `INIT_TIMEOUT` once the limit passes. The kernel cannot stop a function: a late `init` runs on,
 * but nothing that waited for it (registering its tools, its dependents) happens.
 */
export async function withinInitLimit(id: string, ms: number, init: () => unknown): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ArmatureError('INIT_TIMEOUT', `init did not finish within ${ms} ms, so the boot went on without it; ${howToRaise(id, ms)}`, { details: { id, limitMs: ms } })),
      ms,
    );
  });
  try {
    await Promise.race([Promise.resolve().then(init), late]);
  } finally {
    clearTimeout(timer);
  }
}
