/**
 * Node: a {@link SharedStore} in a folder that every process on the data folder opens at once:
 *
 * - `journal.jsonl`: lines appended with `O_APPEND` in one `write` each, then `fdatasync`. The
 *   kernel appends each whole at the end, so processes never interleave; each is written as
 *   `\n<line>\n`, so a line a crash cut short is ended by the next one and stays a line of its own
 *   (its reader finds it torn and skips it) instead of spoiling the next.
 * - `blobs/<name>`: written once, through a temporary file that is fsynced and renamed, then the
 *   folder fsynced.
 * - `locks/<key>.lock`: see `node-file-lock.ts`.
 *
 * Others' appends are noticed with `fs.watch` on the folder, and a stat once a second in case the
 * file system sends no notices (network file systems).
 */
import { constants, readFileSync, watch, type FSWatcher } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ArmatureError } from '../kernel/errors.ts';
import { removeDeadTakers, withFileLock } from './node-file-lock.ts';
import { makeFolders, processAlive, syncDir } from './node-files.ts';
import type { JournalLine, SharedStore } from './platform.ts';
import { die, faultAt } from './node-store-faults.ts';

const BLOB_NAME = /^[A-Za-z0-9][A-Za-z0-9.-]{0,199}$/;
const NL = 0x0a;

/** Options of {@link openSharedDirectory}. */
export interface SharedDirectoryOptions {
  /** How often the journal's size is checked besides `fs.watch`, in ms. Default: 1000. */
  pollMs?: number;
  /** How long a lock waits for a live holder, in ms. Default: 30000. */
  lockTimeoutMs?: number;
}

/** Opens (creating if needed) the shared store in folder `dir`. */
export async function openSharedDirectory(dir: string, options: SharedDirectoryOptions = {}): Promise<SharedStore> {
  await makeFolders(dir);
  const blobs = join(dir, 'blobs');
  const locks = join(dir, 'locks');
  const temp = join(dir, 'tmp');
  for (const d of [blobs, locks, temp]) await mkdir(d).catch((e: NodeJS.ErrnoException) => (e.code === 'EEXIST' ? undefined : Promise.reject(e)));
  await syncDir(dir);
  await removeDeadTakers(locks);
  for (const name of await readdir(temp)) {
    const pid = /^(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) await rm(join(temp, name), { force: true });
  }
  const journalPath = join(dir, 'journal.jsonl');
  const existed = await stat(journalPath).then(() => true, () => false);
  const journal: FileHandle = await open(journalPath, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o644);
  if (!existed) await syncDir(dir);
  const watchers = new Set<() => void>();
  let fsWatcher: FSWatcher | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;
  let lastSize = -1;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const notify = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      for (const w of [...watchers]) w();
    }, 10);
    pending.unref?.();
  };
  const startWatching = () => {
    try {
      fsWatcher = watch(dir, { persistent: false }, (_type, name) => {
        if (name === null || name === 'journal.jsonl') notify();
      });
      fsWatcher.on('error', () => undefined);
    } catch {
      // No notices here: the poll below still sees every append.
    }
    poll = setInterval(() => {
      void journal.stat().then(
        (s) => {
          if (s.size !== lastSize) {
            if (lastSize !== -1) notify();
            lastSize = s.size;
          }
        },
        () => undefined,
      );
    }, options.pollMs ?? 1000);
    poll.unref?.();
  };

  return {
    location: dir,

    async read(cursor) {
      const { size } = await journal.stat();
      lastSize = size;
      if (size <= cursor) return { lines: [], cursor, rest: 0 };
      const data = new Uint8Array(size - cursor);
      let got = 0;
      while (got < data.byteLength) {
        const { bytesRead } = await journal.read(data, got, data.byteLength - got, cursor + got);
        if (!bytesRead) break;
        got += bytesRead;
      }
      const end = data.lastIndexOf(NL, got - 1);
      if (end < 0) return { lines: [], cursor, rest: got };
      const decoder = new TextDecoder();
      const lines: JournalLine[] = [];
      let start = 0;
      for (let i = data.indexOf(NL); i !== -1 && i <= end; i = data.indexOf(NL, i + 1)) {
        if (i > start) lines.push({ text: decoder.decode(data.subarray(start, i)), at: cursor + start });
        start = i + 1;
      }
      return { lines, cursor: cursor + end + 1, rest: got - end - 1 };
    },

    async append(line) {
      if (line.includes('\n')) throw new ArmatureError('INVALID_LINE', '[store] a journal line holds a line break', { hint: 'Serialize it as one line (JSON does).' });
      const bytes = new TextEncoder().encode(`\n${line}\n`);
      const fault = faultAt();
      if (fault === 'before') await die();
      const length = fault === 'torn' ? Math.max(1, bytes.byteLength >> 1) : bytes.byteLength;
      const { bytesWritten } = await journal.write(bytes, 0, length, null);
      await journal.datasync();
      if (fault) await die();
      if (bytesWritten !== length) throw new ArmatureError('PERSIST_FAILED', `[store] only ${bytesWritten} of ${length} bytes reached ${journalPath}`, { hint: 'Free disk space and try again.' });
    },

    blob(name) {
      if (!BLOB_NAME.test(name)) return undefined;
      try {
        return new Uint8Array(readFileSync(join(blobs, name)));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },

    async putBlob(name, data) {
      if (!BLOB_NAME.test(name)) throw new ArmatureError('INVALID_BLOB_NAME', `[store] invalid blob name ${JSON.stringify(name.slice(0, 60))}`, { hint: 'Use letters, digits, "." and "-".' });
      const full = join(blobs, name);
      if (await stat(full).then(() => true, () => false)) return;
      const fault = faultAt();
      if (fault === 'before') await die();
      const tmp = join(temp, `${process.pid}-${Math.random().toString(36).slice(2)}`);
      const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        await handle.writeFile(fault === 'torn' ? data.subarray(0, data.byteLength >> 1) : data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (fault === 'torn') await die();
      await rename(tmp, full);
      await syncDir(blobs);
      if (fault === 'after') await die();
    },

    lock(key, fn) {
      if (!BLOB_NAME.test(key)) return Promise.reject(new ArmatureError('INVALID_LOCK_NAME', `[store] invalid lock name ${JSON.stringify(key.slice(0, 60))}`, { hint: 'Use letters, digits, "." and "-".' }));
      return withFileLock(join(locks, `${key}.lock`), fn, { timeoutMs: options.lockTimeoutMs });
    },

    watch(listener) {
      if (!watchers.size && !poll) startWatching();
      watchers.add(listener);
      return { dispose: () => watchers.delete(listener) };
    },

    async close() {
      watchers.clear();
      fsWatcher?.close();
      if (poll) clearInterval(poll);
      if (pending) clearTimeout(pending);
      await journal.close().catch(() => undefined);
    },
  };
}
