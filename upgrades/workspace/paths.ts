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

/** Longest file or folder name a store keeps, in UTF-8 bytes (what common file systems allow). */
export const MAX_SEGMENT_BYTES = 255;

/**
 * Normalizes a workspace path: `\` becomes `/`, `.` and empty segments go, `a/../b` becomes `b`.
 * Rejects (with {@link InvalidPathError}) empty paths, NUL bytes, absolute host paths
 * (`/etc/passwd`, `C:\x`, `\\server\share`), `..` that would leave the workspace, paths
 * longer than {@link MAX_PATH_LENGTH}, and names every store cannot keep distinct: a lone
 * surrogate (UTF-8 has no form for it, so `sur\uD800` and `sur\uDC00` would both become
 * `sur\uFFFD` on disk) and a name over {@link MAX_SEGMENT_BYTES} bytes of UTF-8. Both stores
 * (IndexedDB, which could keep them, and the Node directory store, which could not) refuse the same.
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
  const joined = out.join('/');
  // Two checks in one pass over the characters: a lone surrogate, and each name's UTF-8 length.
  let bytes = 0;
  for (let i = 0; i < joined.length; i++) {
    const c = joined.charCodeAt(i);
    if (c === 0x2f) {
      bytes = 0;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = joined.charCodeAt(i + 1);
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
        throw new InvalidPathError(path, `it holds a lone surrogate (U+${c.toString(16).toUpperCase()}) at character ${i}: stores keep names as UTF-8, which has no form for it, so it could not be told apart from other names`);
      }
      i++;
      bytes += 4;
    } else bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (bytes > MAX_SEGMENT_BYTES) {
      const segment = out.find((s) => new TextEncoder().encode(s).length > MAX_SEGMENT_BYTES) ?? '';
      throw new InvalidPathError(path, `the name ${quote(segment, 40)} is ${new TextEncoder().encode(segment).length} bytes in UTF-8; a file or folder name has at most ${MAX_SEGMENT_BYTES}`);
    }
  }
  return joined;
}
