/**
 * A fault point for crash tests of the shared store (Node): `ARMATURE_STORE_FAULT=N[:mode]` kills
 * this process with SIGKILL at its Nth durable write to a shared store (a journal line or a blob,
 * counted from 1), so a test can stop a real process at every write boundary in turn. Modes:
 * `before` (default: the write never starts), `torn` (half of it is written, then the kill) and
 * `after` (it is durable, but the writer never hears so). Unset, it costs one comparison per write.
 */

/** What happens at the fault: see the module header. */
export type FaultMode = 'before' | 'torn' | 'after';

const spec = typeof process !== 'undefined' ? /^(\d+)(?::(before|torn|after))?$/.exec(process.env.ARMATURE_STORE_FAULT ?? '') : null;
const at = spec ? Number(spec[1]) : 0;
const mode: FaultMode = (spec?.[2] as FaultMode | undefined) ?? 'before';
let writes = 0;

/** Counts one durable write; answers the mode when this is the write to fail at, else undefined. */
export function faultAt(): FaultMode | undefined {
  if (!at) return undefined;
  writes++;
  return writes === at ? mode : undefined;
}

/** Kills this process at once, as a power cut or `kill -9` would: no handler, no flush. */
export function die(): Promise<never> {
  process.kill(process.pid, 'SIGKILL');
  return new Promise(() => {});
}
