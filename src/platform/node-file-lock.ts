/**
 * Node: an exclusive lock between processes, as a file. Taking it links a file naming its holder
 * (pid, and when the pid's process started) to the lock's name, which fails while another holds
 * it. A holder that died (its pid is gone, or now belongs to a process that started later) loses
 * the lock: the next taker moves the stale file aside, checks that it moved exactly the file it
 * judged stale, and takes the lock. Without `flock` in Node's core, this is the portable way; its
 * one residual race (two takers breaking the same stale lock while a third takes it) needs two
 * processes dying at once, and the change path's journal refuses a decision made over a stale view
 * anyway (see upgrades/changes/journal-fold.ts).
 */
import { link, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ArmatureError } from '../kernel/errors.ts';
import { startTicks } from './linux-proc.ts';
import { processAlive } from './node-files.ts';

/** Who holds a lock: what the lock file says. */
interface Holder {
  pid: number;
  /** The holder's start time in clock ticks (Linux), to tell it from a later process with its pid. */
  start: number | null;
  at: number;
}

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** How long to wait for a live holder, in ms. Default: 30000. */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether the holder a lock file names is gone. */
function stale(holder: Holder | undefined, ageMs: number): boolean {
  // A file that cannot be read whole was cut short by a crash of the machine itself: old ones are stale.
  if (!holder) return ageMs > 5000;
  if (!processAlive(holder.pid)) return true;
  const start = startTicks(holder.pid);
  return holder.start !== null && start !== undefined && start !== holder.start;
}

async function readHolder(path: string): Promise<{ holder?: Holder; ino: number; ageMs: number } | undefined> {
  try {
    const info = await stat(path);
    let holder: Holder | undefined;
    try {
      const h = JSON.parse(await readFile(path, 'utf8')) as Holder;
      if (Number.isInteger(h.pid)) holder = h;
    } catch {
      // Unreadable: judged by its age.
    }
    return { holder, ino: info.ino, ageMs: Date.now() - info.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Moves the stale lock file at `path` aside, if it is still the file (inode `ino`) judged stale. */
async function breakStale(path: string, ino: number): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await rename(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if ((await stat(aside)).ino !== ino) {
    // Another taker broke it first and a live process took the lock since: give it back.
    await link(aside, path).catch(() => undefined);
  }
  await rm(aside, { force: true });
}

/**
 * Runs `fn` holding the lock file `path` (its folder must exist), then releases it. Throws
 * `STORE_BUSY` naming the holder when a live one keeps it past `timeoutMs`.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const me: Holder = { pid: process.pid, start: startTicks(process.pid) ?? null, at: Date.now() };
  const mine = `${path}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  const handle = await open(mine, 'wx');
  try {
    await handle.writeFile(JSON.stringify(me));
  } finally {
    await handle.close();
  }
  let ino: number;
  try {
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        await link(mine, path);
        ino = (await stat(mine)).ino;
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const held = await readHolder(path);
      if (held && stale(held.holder, held.ageMs)) {
        await breakStale(path, held.ino);
        continue;
      }
      if (Date.now() > deadline) {
        throw new ArmatureError('STORE_BUSY', `[store] ${basename(path)} in ${dirname(path)} is held by process ${held?.holder?.pid ?? '?'} for longer than ${options.timeoutMs ?? 30_000} ms`, {
          hint: 'Another armature process is deciding a change on this data folder: try again when it is done, or stop it.',
          details: { path, holder: held?.holder },
        });
      }
      await sleep(wait);
    }
  } finally {
    await rm(mine, { force: true });
  }
  try {
    return await fn();
  } finally {
    // Released only while it is still this taker's file (nothing else ever takes a live lock).
    const now = await stat(path).catch(() => undefined);
    if (now?.ino === ino) await rm(path, { force: true });
  }
}

/** Removes the files that takers which died left beside the locks in `dir` (names carrying their pid). */
export async function removeDeadTakers(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = /\.lock\.(?:stale-)?(\d+)-[0-9a-z]+$/.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) await rm(join(dir, name), { force: true });
  }
}
