/**
 * Versions of agent-made upgrades held back. A version in force whose own code ran past one of
 * its limits (its top level or `init` when it started, an event handler while it ran) is
 * remembered, keyed by the version's hash, in the workspace's hidden area `upgrade-held`, and is
 * not started again — at this boot or any later one — until it changes: a new version (another
 * hash), a rollback (another change, even back to the same hash), or `retry_upgrade`. So an
 * init that loops costs one boot its limit, not every command after it.
 */
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { SystemArea } from '../workspace/contract.ts';

/** The hidden area the records live in (IndexedDB in the browser, files in Node). */
export const HELD_AREA = 'upgrade-held';

/** Why a version is held back. */
export interface HeldVersion {
  id: string;
  version: number;
  hash: string;
  /** The change that brought it into force: a later change of the same hash is tried again. */
  change: string;
  /** `LOAD_TIMEOUT`, `INIT_TIMEOUT` or `HANDLER_TIMEOUT`. */
  code: string;
  message: string;
  /** When it ran past its limit (ms since the epoch). */
  at: number;
}

/** A version hash as the change store writes it: the only thing that becomes a path here. */
const HASH = /^[0-9a-f]{16,128}$/;

/** The held-back versions, over a system area. */
export class HeldBack {
  constructor(private readonly area: SystemArea) {}

  /** The record of the version `hash`, if it is held back. A damaged record holds nothing back. */
  get(hash: string): HeldVersion | undefined {
    if (!HASH.test(hash)) return undefined;
    try {
      const v = JSON.parse(this.area.readText(`${hash}.json`) ?? 'null') as HeldVersion | null;
      return v && typeof v.change === 'string' && typeof v.message === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }

  /** Holds the version back; resolves once durable. */
  async hold(v: HeldVersion): Promise<void> {
    if (!HASH.test(v.hash)) throw new ArmatureError('INVALID_HASH', `[made-upgrades] ${JSON.stringify(v.hash.slice(0, 80))} is not a version hash`);
    await this.area.write(`${v.hash}.json`, JSON.stringify(v));
  }

  /** Lets the version `hash` start again; resolves to whether it was held back. */
  async release(hash: string): Promise<boolean> {
    if (!HASH.test(hash) || !this.get(hash)) return false;
    return this.area.delete(`${hash}.json`);
  }
}

/** Said of a held-back version: what brings it back. */
export function untilChanged(id: string): string {
  return `it will not be started again until it changes (update_upgrade, rollback_upgrade) or retry_upgrade {"id": "${id}"} tries it once more`;
}

/** The error a start of a held-back version fails with, quoting when and why it was held back. */
export function heldBackError(v: HeldVersion, limitHint: string): ArmatureError {
  return new ArmatureError(
    'UPGRADE_HELD_BACK',
    `[made-upgrades] ${v.id} v${v.version} was not started: on ${new Date(v.at).toISOString().replace('T', ' ').slice(0, 19)} UTC ${v.message.replace(/^\[made-upgrades\] \S+ v\d+: /, '')}; ${untilChanged(v.id)}`,
    { hint: `armature call retry_upgrade '{"id": "${v.id}"}' starts it now; ${limitHint}`, details: { ...v } },
  );
}
