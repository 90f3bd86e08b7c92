/**
 * Keeps the processes folder bounded: a process that ended (or crashed) longer ago than the
 * retention loses its folder, and of the ended ones only the newest few are kept. Run by each
 * journal as it opens, so a folder that sees many short CLI commands does not grow for good.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isPresence, PRESENCE_FILE, processesDir } from './journal-layout.ts';
import { endReason } from './process-liveness.ts';

/** Ended processes' folders kept at most, whatever their age. */
export const MAX_ENDED_KEPT = 50;

/** Removes the folders of processes that ended more than `retentionMs` ago, and all but the newest {@link MAX_ENDED_KEPT} ended ones. */
export function pruneProcesses(dataDir: string, retentionMs: number, now = Date.now()): void {
  const root = processesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  const ended: { folder: string; at: number }[] = [];
  for (const name of names) {
    const folder = join(root, name);
    let at: number | undefined;
    try {
      const presence: unknown = JSON.parse(readFileSync(join(folder, PRESENCE_FILE), 'utf8'));
      const beat = statSync(join(folder, PRESENCE_FILE)).mtimeMs;
      if (!isPresence(presence)) at = beat;
      // Ended as the dashboard judges it, with the retention as the heartbeat's limit: a lost process is kept that long.
      else if (endReason(presence, beat, retentionMs, now)) at = presence.endedAt ?? beat;
    } catch {
      // No presence (yet, or torn): judge by the folder's age, so a folder being made is left alone.
      try {
        const made = statSync(folder).mtimeMs;
        if (now - made > 60_000) at = made;
      } catch {
        continue;
      }
    }
    if (at !== undefined) ended.push({ folder, at });
  }
  ended.sort((a, b) => b.at - a.at);
  ended.forEach((e, i) => {
    if (i >= MAX_ENDED_KEPT || now - e.at > retentionMs) rmSync(e.folder, { recursive: true, force: true });
  });
}
