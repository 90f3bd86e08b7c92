/**
 * Reading other processes from Linux's `/proc`: a process's children, its resident memory, the CPU
 * time it used, the time its threads waited for a core, and its command line. The host watches its
 * confined children's memory with these; tests and benches find and measure children with them.
 * Elsewhere (no `/proc`), and for a process that is gone, each reads as nothing (`[]` or
 * `undefined`): callers decide what absence means.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** ms per clock tick in `/proc/<pid>/stat` (USER_HZ, 100 on Linux whatever the kernel's own HZ). */
export const CLOCK_TICK_MS = 10;

/**
 * The fields of `/proc/<pid>/stat` after the command name, which may itself hold spaces and
 * parentheses: index 0 is field 3 of proc(5) (state), 1 is the parent's pid, 11 and 12 are utime
 * and stime.
 */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Pids of the processes whose parent is `pid`, in ascending order: those started by any of its
 * threads. Default `pid`: this process.
 */
export function childPids(pid: number = process.pid): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    // A process that ends meanwhile has no stat: it is no one's child any more.
    if (Number(statFields(entry)?.[1]) === pid) out.push(Number(entry));
  }
  return out.sort((a, b) => a - b);
}

/** Resident memory of process `pid` (`VmRSS`), in bytes. */
export function residentBytes(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** CPU time process `pid` used so far (user + system, all its threads), in clock ticks (see {@link CLOCK_TICK_MS}). */
export function cpuTicks(pid: number): number | undefined {
  const f = statFields(pid);
  return f === undefined ? undefined : Number(f[11]) + Number(f[12]);
}

/**
 * When process `pid` started, in clock ticks since the machine booted (field 22 of
 * `/proc/<pid>/stat`): with the pid, it tells a process from a later one that reuses its pid.
 */
export function startTicks(pid: number): number | undefined {
  const f = statFields(pid);
  return f === undefined ? undefined : Number(f[19]);
}

/** The thread ids of process `pid` (`/proc/<pid>/task`), or undefined when it cannot be read. */
function threadIds(pid: number): string[] | undefined {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
}

/**
 * Scheduler times of process `pid`, summed over its threads (`/proc/<pid>/task/<tid>/schedstat`,
 * kernels with scheduler statistics): `runMs` on a core, `waitMs` runnable but waiting for one —
 * the cost of more busy threads than cores. Threads that ended are not counted.
 */
export function schedTimes(pid: number): { runMs: number; waitMs: number } | undefined {
  const tids = threadIds(pid);
  if (!tids) return undefined;
  let runNs = 0;
  let waitNs = 0;
  let read = 0;
  for (const tid of tids) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      if (!Number.isFinite(run) || !Number.isFinite(wait)) continue;
      runNs += run!;
      waitNs += wait!;
      read++;
    } catch {
      // A thread that ended meanwhile, or a kernel without the file.
    }
  }
  return read === 0 ? undefined : { runMs: runNs / 1e6, waitMs: waitNs / 1e6 };
}

/** The niceness of each thread of process `pid` (field 19 of each `/proc/<pid>/task/<tid>/stat`). */
export function threadNiceness(pid: number): number[] {
  return (threadIds(pid) ?? []).map((tid) => Number(statFields(`${pid}/task/${tid}`)?.[16])).filter((n) => Number.isFinite(n));
}

/** The arguments process `pid` was started with, its executable first. */
export function commandLine(pid: number): string[] | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw === '' ? undefined : raw.replace(/\0$/, '').split('\0');
  } catch {
    return undefined;
  }
}
