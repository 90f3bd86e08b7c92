/** Linux: the pids of this process's confined Python children (their command line runs the Python child). */
import { existsSync, readFileSync } from 'node:fs';

export function pythonChildPids(): string[] {
  const list = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return list.filter((pid) => existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('python-child'));
}
