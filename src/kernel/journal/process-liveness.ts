/**
 * Whether a process on the data folder lives, judged from its folder alone (see
 * `journal-layout.ts`): it `exited` when its presence says it ended, it `crashed` when its pid is
 * gone from this host without that word (the platform's `processAlive`), and it is `lost` when its
 * heartbeat stopped (a hung process, or one on another host, whose pid means nothing here). The
 * dashboard's watcher, the journal's pruning and the processes directory upgrades ask all judge
 * this way. Node only.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../platform/node-files.ts';
import { isPresence, PRESENCE_FILE, processesDir, SAFE_ID, type Presence, type ProcessDirectory, type ProcessEndReason, type ProcessStatus } from './journal-layout.ts';

/** A heartbeat older than this is a lost process, by default. */
export const STALE_MS = 15_000;

/** The presence file of the process folder `folder`, or undefined while it is absent, torn or not one. */
export function readPresence(folder: string): Presence | undefined {
  try {
    const p: unknown = JSON.parse(readFileSync(join(folder, PRESENCE_FILE), 'utf8'));
    return isPresence(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

/** When the process of `folder` last touched its heartbeat (ms since the epoch), if it has a presence file. */
export function heartbeatOf(folder: string): number | undefined {
  try {
    return statSync(join(folder, PRESENCE_FILE)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** How the process of `presence` ended, or undefined while it lives. `heartbeat`: {@link heartbeatOf} its folder. */
export function endReason(presence: Presence, heartbeat: number | undefined, staleMs = STALE_MS, now = Date.now()): ProcessEndReason | undefined {
  if (presence.endedAt !== undefined) return 'exited';
  if (presence.host === hostname() && !processAlive(presence.pid)) return 'crashed';
  if (heartbeat === undefined || now - heartbeat > staleMs) return 'lost';
  return undefined;
}

/** The status of the process in `folder` now, or undefined without a presence file. */
export function processStatusOf(folder: string, staleMs = STALE_MS): ProcessStatus | undefined {
  const presence = readPresence(folder);
  if (!presence) return undefined;
  const beat = heartbeatOf(folder);
  const reason = endReason(presence, beat, staleMs);
  const { host: _host, endedAt, ...info } = presence;
  if (!reason) return { ...info, state: 'live' };
  return { ...info, state: reason, endedAt: endedAt ?? beat ?? Date.now() };
}

/** The processes of the data folder `dataDir`, read from their folders each time they are asked for. */
export function processDirectory(dataDir: string, staleMs = STALE_MS): ProcessDirectory {
  const root = processesDir(dataDir);
  return {
    status: (id) => (SAFE_ID.test(id) ? statusIn(root, id, staleMs) : undefined),
    list() {
      let names: string[];
      try {
        names = readdirSync(root);
      } catch {
        return [];
      }
      return names
        .map((id) => (SAFE_ID.test(id) ? statusIn(root, id, staleMs) : undefined))
        .filter((p): p is ProcessStatus => !!p)
        .sort((a, b) => a.startedAt - b.startedAt);
    },
  };
}

function statusIn(root: string, id: string, staleMs: number): ProcessStatus | undefined {
  const status = processStatusOf(join(root, id), staleMs);
  // A folder's name is its process's id; one whose presence says otherwise is not that process.
  return status?.id === id ? status : undefined;
}
