/**
 * Follows every process on a data folder: finds their folders (started before or after), tails
 * their journals (fs.watch on each folder, read of the appended bytes, with a slow poll as the
 * fallback), and judges whether each still lives — `exited` when it said so, `crashed` when its
 * pid is gone without a word, `lost` when its heartbeat stopped (a hung process, another host) —
 * so that no process shows as running forever. What the dashboard server serves as other
 * processes' events.
 */
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Disposable } from '../lifecycle.ts';
import { processesDir, type JournalRecord, type Presence, type ProcessEndReason, type ProcessInfo } from './journal-layout.ts';
import { endReason, heartbeatOf, readPresence, STALE_MS } from './process-liveness.ts';
import { ProcessTail } from './process-tail.ts';

/** Ended processes a watcher keeps listing (the newest). */
export const MAX_ENDED_REMEMBERED = 200;

/** A journal record and the process it came from. */
export interface ProcessRecord extends JournalRecord {
  process: string;
}

/** Options of {@link watchProcesses}. */
export interface ProcessesWatcherOptions {
  /** The data folder (absolute). */
  dataDir: string;
  /** Process ids to leave out (the watching process's own journal). Default: none. */
  skip?: readonly string[];
  /** Each record as it is read (the history first, oldest first). */
  onRecord(record: ProcessRecord): void;
  /** A process was found, or came back after it was lost. */
  onStarted(process: ProcessInfo): void;
  /** A process ended. */
  onEnded(process: ProcessInfo, reason: ProcessEndReason): void;
  /** How often liveness is judged and every journal read, whatever the watches say. Default: 500 ms. */
  pollMs?: number;
  /** A heartbeat older than this is a lost process. Default: 15 s. */
  staleMs?: number;
  /** How much of a journal found already written is read (its newest bytes). Default: 256 KiB. */
  historyBytes?: number;
}

/** What the watcher knows of one process. */
interface Known {
  info: ProcessInfo;
  presence: Presence;
  tail: ProcessTail;
  watcher?: FSWatcher;
  live: boolean;
}

/** A running watch of a data folder's processes. */
export interface ProcessesWatcher extends Disposable {
  /** Every process found, live ones and ended ones (with `endedAt`), oldest first. */
  processes(): ProcessInfo[];
  /** The folder of a process, if it is known. */
  folderOf(id: string): string | undefined;
  /** Reads every journal and judges every process now (tests; otherwise watches and the poll do it). */
  refresh(): void;
}

/** Starts watching the processes of `options.dataDir`. */
export function watchProcesses(options: ProcessesWatcherOptions): ProcessesWatcher {
  const root = processesDir(options.dataDir);
  const skip = new Set(options.skip ?? []);
  const staleMs = options.staleMs ?? STALE_MS;
  const historyBytes = options.historyBytes ?? 256 * 1024;
  const known = new Map<string, Known>();
  let disposed = false;
  let rootWatcher: FSWatcher | undefined;

  const emit = (k: Known, records: JournalRecord[]) => {
    for (const r of records) options.onRecord({ ...r, process: k.info.id });
  };
  const read = (k: Known, final = false) => emit(k, k.tail.read(final));

  /** Whether a process lives, and if not, why. */
  const judge = (k: Known): ProcessEndReason | undefined => {
    k.presence = readPresence(k.tail.folder) ?? k.presence;
    return endReason(k.presence, heartbeatOf(k.tail.folder), staleMs);
  };

  const end = (k: Known, reason: ProcessEndReason) => {
    read(k, true);
    k.live = false;
    k.watcher?.close();
    k.watcher = undefined;
    k.info = { ...k.info, endedAt: k.presence.endedAt ?? Date.now() };
    options.onEnded(k.info, reason);
    forgetOldEnded();
  };

  /** A dashboard open for weeks sees thousands of short commands end: it remembers the newest ones. */
  const forgetOldEnded = () => {
    const ended = [...known.values()].filter((x) => !x.live);
    if (ended.length <= MAX_ENDED_REMEMBERED) return;
    ended.sort((a, b) => (a.info.endedAt ?? 0) - (b.info.endedAt ?? 0));
    for (const x of ended.slice(0, ended.length - MAX_ENDED_REMEMBERED)) {
      known.delete(x.info.id);
      // Its folder is not found again as new: it is skipped from now on.
      skip.add(x.info.id);
    }
  };

  const follow = (k: Known) => {
    try {
      k.watcher = watch(k.tail.folder, { persistent: false }, () => {
        if (!disposed && k.live) read(k);
      });
      k.watcher.on('error', () => undefined);
    } catch {
      k.watcher = undefined;
    }
  };

  /** Finds new folders; the first time, the history of all of them in time order. */
  const discover = (first: boolean) => {
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    const found: Known[] = [];
    for (const id of names) {
      if (known.has(id) || skip.has(id)) continue;
      const folder = join(root, id);
      const presence = readPresence(folder);
      // A folder without a presence file yet is being made: the next look finds it.
      if (!presence || presence.id !== id) continue;
      const k: Known = { info: { id, pid: presence.pid, command: presence.command, persona: presence.persona, startedAt: presence.startedAt }, presence, tail: new ProcessTail(folder, historyBytes), live: true };
      known.set(id, k);
      found.push(k);
    }
    found.sort((a, b) => a.info.startedAt - b.info.startedAt);
    const history: ProcessRecord[] = [];
    for (const k of found) {
      options.onStarted(k.info);
      const records = k.tail.read().map((r) => ({ ...r, process: k.info.id }));
      if (first) history.push(...records);
      else for (const r of records) options.onRecord(r);
    }
    history.sort((a, b) => a.at - b.at);
    for (const r of history) options.onRecord(r);
    for (const k of found) {
      const reason = judge(k);
      if (reason) end(k, reason);
      else follow(k);
    }
  };

  const refresh = () => {
    if (disposed) return;
    discover(false);
    for (const k of known.values()) {
      if (k.live) {
        read(k);
        const reason = judge(k);
        if (reason) end(k, reason);
      } else if (k.presence.endedAt === undefined && judge(k) === undefined) {
        // Lost, and its heartbeat came back (a process that was busy or suspended).
        k.live = true;
        k.info = { ...k.info, endedAt: undefined };
        delete k.info.endedAt;
        options.onStarted(k.info);
        follow(k);
      }
    }
  };

  discover(true);
  try {
    rootWatcher = watch(root, { persistent: false }, () => !disposed && discover(false));
    rootWatcher.on('error', () => undefined);
  } catch {
    // No processes folder yet, or no watching here: the poll finds them.
  }
  const poll = setInterval(() => {
    if (!rootWatcher) {
      try {
        rootWatcher = watch(root, { persistent: false }, () => !disposed && discover(false));
        rootWatcher.on('error', () => undefined);
      } catch {
        rootWatcher = undefined;
      }
    }
    refresh();
  }, options.pollMs ?? 500);
  poll.unref();

  return {
    processes: () => [...known.values()].map((k) => k.info).sort((a, b) => a.startedAt - b.startedAt),
    folderOf: (id) => known.get(id)?.tail.folder,
    refresh,
    dispose() {
      disposed = true;
      clearInterval(poll);
      rootWatcher?.close();
      for (const k of known.values()) k.watcher?.close();
    },
  };
}
