/** Linux: the pids of this process's confined Python children (their command line runs the Python child). */
import { childPids, commandLine } from '../../src/platform/proc/linux-proc.ts';

export function pythonChildPids(): number[] {
  return childPids().filter((pid) => commandLine(pid)?.some((arg) => arg.includes('python-child')));
}
