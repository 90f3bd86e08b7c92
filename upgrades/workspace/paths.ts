import { quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';

/** Longest accepted workspace path, in characters. */
export const MAX_PATH_LENGTH = 1024;

/** A path that cannot name a workspace file. */
export class InvalidPathError extends ArmatureError {
  constructor(path: unknown, reason: string) {
    // Quoted and kept bounded: a path from an agent may be megabytes long.
    super('INVALID_PATH', `[workspace] invalid path ${quote(path, 200)}: ${reason}`, {
      details: { path: typeof path === 'string' ? path.slice(0, 200) : quote(path) },
      hint: 'Use a relative path inside the workspace, e.g. "data/report.csv".',
    });
  }
}

/**
 * Normalizes a workspace path: `\` becomes `/`, `.` and empty segments go, `a/../b` becomes `b`.
 * Rejects (with {@link InvalidPathError}) empty paths, NUL bytes, absolute host paths
 * (`/etc/passwd`, `C:\x`, `\\server\share`), `..` that would leave the workspace, and paths
 * longer than {@link MAX_PATH_LENGTH}.
 */
export function normalizePath(path: unknown): string {
  if (typeof path !== 'string') throw new InvalidPathError(path, 'a path must be a string');
  if (path.length > MAX_PATH_LENGTH) throw new InvalidPathError(path, `it is ${path.length} characters long; paths have at most ${MAX_PATH_LENGTH}`);
  if (path.includes('\0')) throw new InvalidPathError(path, 'NUL bytes are not allowed in paths');
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    throw new InvalidPathError(path, 'absolute host paths are not allowed; paths are relative to the workspace root');
  }
  const out: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) throw new InvalidPathError(path, '".." would leave the workspace');
      out.pop();
    } else out.push(segment);
  }
  if (out.length === 0) throw new InvalidPathError(path, 'the path names no file');
  return out.join('/');
}
